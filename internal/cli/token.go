package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/segwi/segwi/settings/token"
)

// maxTokenBytes bounds what token set reads from a pipe; GitHub tokens are far shorter.
const maxTokenBytes = 4096

const where = "the keyring (service " + token.Service + ", item " + token.Item + ")"

func newTokenCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Set, check or delete the GitHub token segwi pushes with (kept in the OS keyring)",
		Args:  noCommand,
		RunE:  needsSubcommand,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "set",
		Short: "Store a GitHub token read from stdin (not echoed on a terminal)",
		Long: "Store a GitHub token in the OS keyring. On a terminal segwi asks for it without echoing\n" +
			"what you type; otherwise it reads it from stdin, e.g. segwi token set < token.txt.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			tok, err := readToken(env.Stdin, env.Stderr)
			if err != nil {
				return err
			}
			if err := token.Set(cmd.Context(), tok); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "GitHub token stored in %s\n", where)
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Say whether a GitHub token is stored (never prints it)",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, err := token.Status(cmd.Context())
			if err != nil {
				return err
			}
			if set {
				fmt.Fprintf(env.Stdout, "GitHub token: set, in %s\n", where)
			} else {
				fmt.Fprintln(env.Stdout, "GitHub token: not set; store one with segwi token set")
			}
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "delete",
		Short: "Delete the stored GitHub token",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := token.Delete(cmd.Context())
			switch {
			case errors.Is(err, token.ErrNotFound):
				fmt.Fprintln(env.Stdout, "no GitHub token was stored; nothing to delete")
				return nil
			case err != nil:
				return err
			}
			fmt.Fprintf(env.Stdout, "GitHub token deleted from %s\n", where)
			return nil
		},
	})
	return cmd
}

// readToken reads the token: from a terminal without echo, prompting on prompt; from
// anything else up to EOF. It trims surrounding whitespace and refuses an empty token or
// one with whitespace inside, which would be a paste gone wrong.
func readToken(in io.Reader, prompt io.Writer) (string, error) {
	var raw []byte
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(prompt, "Paste your GitHub token (it will not be shown) and press Enter: ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return "", fmt.Errorf("reading the token from the terminal: %w", err)
		}
		raw = b
	} else {
		b, err := io.ReadAll(io.LimitReader(in, maxTokenBytes+1))
		if err != nil {
			return "", fmt.Errorf("reading the token from stdin: %w", err)
		}
		if len(b) > maxTokenBytes {
			return "", fmt.Errorf("reading the token from stdin: more than %d bytes: give only the token", maxTokenBytes)
		}
		raw = b
	}
	tok := strings.TrimSpace(string(raw))
	if tok == "" {
		return "", errors.New("no token given: paste it when asked, or pipe it in (segwi token set < token.txt)")
	}
	if strings.ContainsAny(tok, " \t\r\n") {
		return "", errors.New("the token contains spaces or several lines: give only the token")
	}
	return tok, nil
}
