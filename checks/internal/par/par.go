// Package par runs the iterations of a loop on several goroutines, with a
// panic in one raised again on the caller's.
package par

import (
	"sync"
	"sync/atomic"
)

// For calls fn for 0..n-1 on workers goroutines (on the caller's with one
// or fewer), each index once, until fn returns false: then no index is
// started after the ones already running. A panic in fn stops the loop the
// same way and is raised again on the caller's goroutine once every worker
// is done, so the caller recovers it as it would its own.
func For(workers, n int, fn func(i int) bool) {
	if workers <= 1 {
		for i := 0; i < n && fn(i); i++ {
		}
		return
	}
	var (
		next     atomic.Int64
		stop     atomic.Bool
		wg       sync.WaitGroup
		panicked atomic.Value
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					panicked.CompareAndSwap(nil, v)
					stop.Store(true)
				}
			}()
			for !stop.Load() {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if !fn(i) {
					stop.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	if v := panicked.Load(); v != nil {
		panic(v)
	}
}
