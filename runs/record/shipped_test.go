package record

import (
	"testing"

	"github.com/segwi/segwi/internal/lib/gitcmd"
)

// A record's words cut a commit's hash where segwi's git seam does, so that a hash in a
// run window reads as the same hash in git's output that segwi shows elsewhere.
func TestShortHashCutsAsGitDoes(t *testing.T) {
	for _, h := range []string{"", "1a2b", "1a2b3c4d5e6f", "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"} {
		if got, want := shortHash(h), gitcmd.Short(h); got != want {
			t.Errorf("shortHash(%q) = %q, want %q as gitcmd.Short", h, got, want)
		}
	}
}
