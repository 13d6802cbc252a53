package push

import (
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
)

// pushTimeout bounds git push, the one command that waits on the network.
const pushTimeout = 10 * time.Minute

// checkoutGit is req's git with req's environment (this process's when nil), through
// segwi's one git seam (internal/lib/gitcmd), which seals it.
func checkoutGit(req Request) gitcmd.Git {
	return gitcmd.New(req.Git, "", req.Env)
}
