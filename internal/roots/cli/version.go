package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// Version is segwi's version, set at build time with
// -ldflags "-X github.com/segwi/segwi/internal/roots/cli.Version=v1.2.3".
var Version = "dev"

func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print segwi's version",
		Args:  args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(env.Stdout, "segwi %s\n", Version)
			return err
		},
	}
}
