package push

import "github.com/segwi/segwi/internal/gitcmd"

// checkoutGit runs req's git in req's checkout, with req's environment (this process's
// when nil) cleaned, through segwi's one git seam (internal/gitcmd).
func checkoutGit(req Request) gitcmd.Git {
	g := gitcmd.New(req.Git, req.Checkout, req.Env)
	if g.Path == "" {
		g.Path = "git"
	}
	return g
}
