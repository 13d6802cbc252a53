package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/segwi/segwi/settings"
)

// maxAnswerBytes bounds the line config confirm reads from the terminal.
const maxAnswerBytes = 256

func newConfirmCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "confirm",
		Short: "Confirm, at your terminal, an edit of guarded settings made outside the settings window",
		Long: "Some settings widen what a run, or someone on your tailnet, can do: segwi.claude.path,\n" +
			"segwi.runs.passForgeTokens, segwi.approvals.trusted, segwi.github.apiURL and segwi.remote.*.\n" +
			"A run's agent can write the settings file, so an edit that widens one of them, made anywhere\n" +
			"but segwi's settings window, waits for you: segwi, the tray and every command, keep using the\n" +
			"values you confirmed. config confirm shows each waiting edit, old and new, on your terminal\n" +
			"(/dev/tty, never stdin) and puts the new values in force when you type yes. It is for a\n" +
			"machine without the tray (a dev box over ssh); on a desktop the tray asks in a window.\n" +
			"It refuses to run inside a segwi run.\n" +
			"Exit status: 0 when you confirmed or nothing waits, 1 otherwise.",
		Args: args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error { return configConfirm(env) },
	}
}

// configConfirm asks the person at their terminal to confirm the edit of guarded settings
// that waits, and records the new values as confirmed when they do.
func configConfirm(env *Env) error {
	if id := os.Getenv("SEGWI_RUN_ID"); id != "" {
		return fmt.Errorf("config confirm: refused inside segwi run %s (SEGWI_RUN_ID is set): only you confirm settings, "+
			"at a terminal of your own or in the tray's window", id)
	}
	path, err := env.ConfigPath()
	if err != nil {
		return err
	}
	edit, err := waitingEdit(env, path)
	if err != nil {
		return err
	}
	if edit == nil {
		fmt.Fprintf(env.Stdout, "%s: nothing waits for your confirmation: segwi uses the file's settings\n", path)
		return nil
	}
	tty, err := env.openTerminal()
	if err != nil {
		return fmt.Errorf("config confirm: no terminal to ask you on (%v): run segwi config confirm in a terminal of your own, "+
			"or confirm in the tray's window", err)
	}
	defer tty.Close()
	fmt.Fprintf(tty, "%s changed outside segwi's settings window.\n"+
		"These settings widen what a run, or someone on your tailnet, can do; segwi uses the old values until you confirm:\n\n", path)
	for _, c := range edit.Changes() {
		fmt.Fprintf(tty, "  %s: %s\n", c.Key, c.Why)
		writeValue(tty, "old (in force)", c.Old, c.Removed, "- ", c.List)
		writeValue(tty, "new (in the file)", c.New, c.Added, "+ ", c.List)
		fmt.Fprintln(tty)
	}
	fmt.Fprint(tty, "Confirm only what you changed yourself. Put the new values in force? Type yes to confirm: ")
	answer, err := bufio.NewReader(io.LimitReader(tty, maxAnswerBytes)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("config confirm: reading your answer from the terminal: %w", err)
	}
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "yes" && a != "y" {
		fmt.Fprintf(env.Stdout, "not confirmed: segwi keeps using the values you confirmed before\n")
		return &silentError{ExitError}
	}
	// The file, or the record, may have changed while the person read: confirm only what
	// they were shown.
	again, err := waitingEdit(env, path)
	if err != nil {
		return err
	}
	if again == nil || !again.Same(*edit) {
		fmt.Fprintf(env.Stdout, "not confirmed: %s changed again while you read; run segwi config confirm again\n", path)
		return &silentError{ExitError}
	}
	if err := settings.WriteConfirmed(path, edit.New); err != nil {
		return fmt.Errorf("config confirm: %w", err)
	}
	fmt.Fprintf(env.Stdout, "confirmed: segwi now uses the new values in %s (recorded in %s)\n", path, settings.ConfirmedPath(path))
	return nil
}

// waitingEdit loads the settings file at path and returns the edit of guarded settings
// that waits for the person, or nil.
func waitingEdit(env *Env, path string) (*settings.GuardedEdit, error) {
	res, err := settings.Load(path, env.settingsOptions()...)
	if err != nil {
		return nil, err
	}
	if err := res.Err(); err != nil {
		return nil, fmt.Errorf("config confirm: the settings have problems; fix them first (segwi config check lists them all):\n%w", err)
	}
	st := settings.Stand(res)
	if st.Problem != nil {
		fmt.Fprintf(env.Stderr, "warning: %v\n", st.Problem)
	}
	return st.Edit, nil
}

// writeValue writes a setting's value under its label: a value on the label's line, a
// list's entries on lines of their own, those in marked with mark.
func writeValue(w io.Writer, label string, values, marked []string, mark string, list bool) {
	if !list {
		fmt.Fprintf(w, "    %-18s %s\n", label+":", strings.Join(values, ""))
		return
	}
	if len(values) == 0 {
		fmt.Fprintf(w, "    %-18s (none)\n", label+":")
		return
	}
	fmt.Fprintf(w, "    %s:\n", label)
	for _, v := range values {
		m := "  "
		if slices.Contains(marked, v) {
			m = mark
		}
		fmt.Fprintf(w, "      %s%s\n", m, v)
	}
}
