package sheval

import "sync/atomic"

var ZZC [10]atomic.Int64
var ZZT [10]atomic.Int64

func zzMiss(string, []string, bool) {}
