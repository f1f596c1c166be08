// Package testkit holds what the App's packages' tests share: one RSA key
// for App JWTs (generating one costs more than most tests) and a logger
// that discards.
package testkit

import (
	"crypto/rand"
	"crypto/rsa"
	"io"
	"log/slog"
	"sync"
	"testing"
)

var (
	keyOnce sync.Once
	key     *rsa.PrivateKey
)

// AppKey is one RSA key for every test of a test binary.
func AppKey(testing.TB) *rsa.PrivateKey {
	keyOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		key = k
	})
	return key
}

// QuietLogger discards what it is given.
func QuietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
