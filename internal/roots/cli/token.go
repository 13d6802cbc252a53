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
	"github.com/segwi/segwi/settings/token/keyring"
)

// maxTokenBytes bounds what token set reads from a pipe; GitHub tokens are far shorter.
const maxTokenBytes = 4096

const where = "the keyring (service " + keyring.Service + ", item " + keyring.Item + ")"

func newTokenCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Set, check or delete the GitHub token segwi pushes with (kept in the OS keyring)",
		Args:  noCommand,
		RunE:  needsSubcommand,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "set",
		Short: "Store a GitHub token read from stdin (not echoed on a terminal), for segwi.github.apiURL's host",
		Long: "Store a GitHub token in the OS keyring, for the host of the GitHub API in force\n" +
			"(segwi.github.apiURL, as you confirmed it): segwi sends the token to that host only, and\n" +
			"pushes with it only to its git host (github.com for api.github.com). On a terminal segwi asks\n" +
			"for it without echoing what you type; otherwise it reads it from stdin, e.g.\n" +
			"segwi token set < token.txt.",
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, st, err := env.LoadSettings()
			if err != nil {
				return err
			}
			apiURL := st.Settings.GitHub.APIURL
			host, err := token.APIHost(apiURL)
			if err != nil {
				return err
			}
			tok, err := readToken(env.Stdin, env.Stderr, host)
			if err != nil {
				return err
			}
			if err := keyring.Set(cmd.Context(), tok, apiURL); err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "GitHub token stored in %s, for %s (segwi.github.apiURL %s)\n", where, hostText(host), apiURL)
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Say whether a GitHub token is stored, and for which host (never prints it)",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := keyring.Status(cmd.Context())
			if err != nil {
				return err
			}
			switch {
			case !st.Set:
				fmt.Fprintln(env.Stdout, "GitHub token: not set; store one with segwi token set")
			case st.Legacy:
				fmt.Fprintf(env.Stdout, "GitHub token: set, in %s, by an older segwi that did not record its host: "+
					"it counts as set for %s; segwi token set saves it again for the host of segwi.github.apiURL\n", where, hostText(st.APIHost))
			default:
				fmt.Fprintf(env.Stdout, "GitHub token: set for %s, in %s\n", hostText(st.APIHost), where)
			}
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "delete",
		Short: "Delete the stored GitHub token",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := keyring.Delete(cmd.Context())
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

// hostText names a GitHub API host and the git host a token saved for it pushes to.
func hostText(apiHost string) string {
	if git := token.GitHost(apiHost); git != apiHost {
		return fmt.Sprintf("%s (pushes to %s)", apiHost, git)
	}
	return apiHost
}

// readToken reads the token for the API host host: from a terminal without echo,
// prompting on prompt; from anything else up to EOF. It trims surrounding whitespace and
// refuses an empty token or one with whitespace inside, which would be a paste gone wrong.
func readToken(in io.Reader, prompt io.Writer, host string) (string, error) {
	var raw []byte
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(prompt, "Paste your GitHub token for %s (it will not be shown) and press Enter: ", hostText(host))
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
