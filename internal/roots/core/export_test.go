package core

import "github.com/segwi/segwi/approvals/mcpserver"

// ApprovalsServer returns c's approvals server, for the tests that ask it as Claude Code
// does.
func ApprovalsServer(c *Core) *mcpserver.Server { return c.server }
