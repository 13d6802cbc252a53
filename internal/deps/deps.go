// Package deps pins the chosen dependencies in go.mod until the code that uses them lands.
package deps

import (
	_ "fyne.io/fyne/v2/test"
	_ "github.com/creack/pty"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/viper"
	_ "github.com/zalando/go-keyring"
	_ "golang.org/x/term"
	_ "mvdan.cc/sh/v3/syntax"
)
