package core

import "github.com/segwi/segwi/approvals"

// ApprovalsServer returns c's approvals server, for the tests that ask it as Claude Code
// does.
func ApprovalsServer(c *Core) *approvals.Server { return c.server }
