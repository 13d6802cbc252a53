package syncbuf_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/segwi/segwi/internal/testing/syncbuf"
)

// Run with -race: writers and a reader at once must not race, and no write is lost.
func TestWritesFromManyGoroutinesAllArrive(t *testing.T) {
	var b syncbuf.Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				b.Write([]byte("x"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if got := b.String(); got != strings.Repeat("x", 800) {
		t.Errorf("got %d bytes, want the 800 written", len(got))
	}
}
