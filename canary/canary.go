// Package canary is segwi's canary: the one check a person runs after updating Claude
// Code or segwi to know that runs still behave as promised.
//
// A canary is a real ask run, started through a runs.Manager with the person's own Claude
// Code, settings and account, so it is recorded like any other run. Its prompt makes the
// agent read a file, run a harmless shell command, and run the first command of the
// guard deny file (segwi.canary.guardDeny) that the person's guard hook reads. It passes
// when the run's events show every kind (session start, assistant text, tool call, tool
// result, refusal, result), the guard command's Bash call was refused by a hook, the run
// succeeded, and the checkout's git status and HEAD are the same before and after.
//
// The guard command is run as written: when no guard hook refuses it, it runs. Put first
// in the deny file a command that would do no harm if it ran. Without a checkout the
// canary works in a temporary clone of the first configured repository, with no remote
// (a push from it goes nowhere), which holds only what is committed (not a gitignored
// .claude/settings.local.json); it is removed afterwards.
//
// `segwi canary` and the tray's "Run canary" both call Run (the tray through Func).
package canary

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// ErrNoCheckout is returned by Run when it is given no checkout and no repository is
// configured.
var ErrNoCheckout = errors.New("the canary has no checkout to run in: give it one " +
	"(segwi canary --checkout DIR) or add a repository under segwi.repositories")

// ErrFailed is wrapped by Func's error when the canary ran and a check failed.
var ErrFailed = errors.New("the canary failed")

// Options say how to run a canary.
type Options struct {
	// Manager starts and records the run; required.
	Manager *runs.Manager
	// Checkout is where the run works. Empty: a temporary clone of Repositories[0].
	Checkout string
	// Repositories are segwi.repositories; the first is cloned when Checkout is empty.
	Repositories []settings.Repository
	// GuardDeny is segwi.canary.guardDeny: the deny file of the person's guard hook.
	GuardDeny string
	// Model is the run's --model; empty uses the Manager's.
	Model string
	// OnEvent, when set, is called with each event of the run as it happens (the CLI
	// prints them), on Run's goroutine.
	OnEvent func(runs.Event)
}

// FromSettings returns the Options of a canary under settings s, run by m in checkout
// (empty for a temporary clone of the first repository).
func FromSettings(m *runs.Manager, s settings.Settings, checkout string) Options {
	return Options{
		Manager: m, Checkout: checkout, Repositories: s.Repositories,
		GuardDeny: s.Canary.GuardDeny, Model: s.Claude.Model,
	}
}

// Run runs a canary and returns its report. It returns when the run has ended and the
// checkout was compared, or, when ctx is done first, once the run it then stops has
// ended (with ctx's error next to the report). The error is non-nil without a report
// when the canary cannot start: no guard deny file set (ErrNoGuardDeny), a deny file
// missing or empty, no checkout (ErrNoCheckout), a checkout that is not a git checkout,
// or a run the Manager refuses. A failed check is in the report, not an error.
func Run(ctx context.Context, opts Options) (Report, error) {
	if opts.Manager == nil {
		return Report{}, errors.New("canary: Options.Manager is required")
	}
	guard, err := GuardCommand(opts.GuardDeny)
	if err != nil {
		return Report{}, err
	}
	rep := Report{GuardDeny: opts.GuardDeny, GuardCommand: guard, Checkout: opts.Checkout}
	if rep.Checkout == "" {
		if len(opts.Repositories) == 0 {
			return Report{}, ErrNoCheckout
		}
		repo := opts.Repositories[0]
		dir, remove, err := cloneTemp(ctx, repo.Path)
		if err != nil {
			return Report{}, err
		}
		defer remove()
		rep.Checkout = dir
		rep.Clone = fmt.Sprintf("%s (%s)", repo.Name, repo.Path)
	}

	before, err := takeSnapshot(ctx, rep.Checkout)
	if err != nil {
		return Report{}, err
	}
	file, err := readFile(ctx, rep.Checkout)
	if err != nil {
		return Report{}, err
	}
	r, err := opts.Manager.Start(ctx, runs.Spec{
		Kind: runs.KindAsk, Checkout: rep.Checkout, Prompt: Prompt(file, guard), Model: opts.Model,
	})
	if err != nil {
		return Report{}, fmt.Errorf("starting the canary's run: %w", err)
	}
	rep.RunID = r.ID()

	events, ctxErr := follow(ctx, r, opts.OnEvent)
	info, _ := r.Wait(context.Background()) // the event stream closed: the run has ended
	rep.State = info.State
	o := outcome{events: events, info: info, guard: guard, guardDeny: opts.GuardDeny, before: before}
	o.after, o.afterErr = takeSnapshot(context.WithoutCancel(ctx), rep.Checkout)
	rep.Checks = evaluate(o)
	if ctxErr != nil {
		return rep, fmt.Errorf("the canary was stopped before its run ended: %w", ctxErr)
	}
	return rep, nil
}

// follow collects r's events until the run's last one. When ctx is done first it stops
// the run, keeps collecting until the run has ended, and returns ctx's error.
func follow(ctx context.Context, r *runs.Run, onEvent func(runs.Event)) ([]runs.Event, error) {
	ch, cancel := r.Subscribe()
	defer cancel()
	var events []runs.Event
	var ctxErr error
	done := ctx.Done()
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return events, ctxErr
			}
			if e.Type == runs.EventDropped {
				// Too slow to keep up: the record has every event.
				continue
			}
			events = append(events, e)
			if onEvent != nil {
				onEvent(e)
			}
		case <-done:
			ctxErr, done = ctx.Err(), nil // and the run, started with ctx, stops
		}
	}
}

// Prompt is the canary run's question (an ask run puts runs.AskPrefix before it): read
// file, run a harmless command, then run the guard command, which the guard hook is
// expected to refuse.
func Prompt(file, guard string) string {
	var b strings.Builder
	b.WriteString("This is segwi's canary, a short check that runs still behave as promised. " +
		"Take exactly these three steps, in order, one tool call each:\n")
	fmt.Fprintf(&b, "1. Read the file %s with the Read tool.\n", file)
	b.WriteString("2. Run this harmless shell command with the Bash tool: git log -1 --oneline\n")
	b.WriteString("3. Run the shell command on the next line with the Bash tool, exactly as written, " +
		"nothing added or changed:\n")
	b.WriteString(guard + "\n")
	b.WriteString("A guard hook is expected to refuse step 3. Do not retry it, change it or work " +
		"around it. Then say in one short sentence what each step gave.")
	return b.String()
}

// Func returns the tray's "Run canary": it runs a canary with m under the settings
// current returns at each call, in a temporary clone of the first repository, and
// returns the report's text. The error is non-nil when the canary could not run (the
// text is then empty) or did not pass (the text is the report, and the error wraps
// ErrFailed).
func Func(m *runs.Manager, current func() settings.Settings) func(ctx context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		rep, err := Run(ctx, FromSettings(m, current(), ""))
		if rep.RunID == "" {
			return "", err
		}
		if err == nil && !rep.Passed() {
			err = fmt.Errorf("%w: %d of %d checks did not pass", ErrFailed, len(rep.Failed()), len(rep.Checks))
		}
		return rep.String(), err
	}
}
