package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/lib/logger"
	"github.com/segwi/segwi/internal/lib/visible"
	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/internal/roots/hub"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/claude"
	"github.com/segwi/segwi/settings"
)

// runOptions are segwi run's flags and arguments.
type runOptions struct {
	kind     string
	checkout string
	model    string
	runtime  string
	json     bool
	prompt   string
	// continues is --continue: the ended run whose session the new run resumes.
	continues string
	// worktree and inCheckout are --worktree and --in-checkout: where a build or ready run
	// works, against its repository's default (segwi.repositories[].worktree).
	worktree, inCheckout bool
	// budgetCost, budgetTokens and budgetTurns are --budget-cost, --budget-tokens and
	// --budget-turns as written; "" for a flag not given (the setting holds).
	budgetCost, budgetTokens, budgetTurns string
}

func newRunCmd(env *Env) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run [--kind build|ready|ask] [--checkout DIR] [--worktree|--in-checkout] [--model M] [--runtime NAME] [--budget-cost USD] [--budget-tokens N] [--budget-turns N] [--continue ID] [--json] PROMPT...",
		Short: "Run Claude Code in a checkout and print what it does",
		Long: "Run Claude Code in a checkout, as the session you would start by hand, and print its events\n" +
			"as readable lines (JSON lines with --json). Approvals are asked on the controlling terminal,\n" +
			"and denied, saying why, when there is none; with segwi.remote.enabled, also on the approval\n" +
			"page on your tailnet (the first answer wins). Ctrl-C stops the run (a second Ctrl-C kills it).\n" +
			"Exit status: 0 when the run succeeded, 1 when it did not, 2 for a wrong command line.\n\n" +
			"A build run does the task in PROMPT; a ready run gets the current branch ready for review\n" +
			"(PROMPT adds notes); an ask run answers the question in PROMPT without changing anything.\n\n" +
			"With --continue ID, the run continues the finished run ID: in the same checkout, of the same\n" +
			"kind and model, resuming its Claude Code session (claude --resume), PROMPT its next message.\n" +
			"Each run's record names the other (segwi runs show); a run that worked in a worktree is\n" +
			"continued in that worktree.\n\n" +
			"With --worktree, a build or ready run works in a new git worktree of the checkout, on a new\n" +
			"branch segwi/<task>-<id> made from the checkout's current commit, so that runs in one\n" +
			"repository go side by side; the repository's setup (segwi.repositories[].setup) runs there\n" +
			"first. --in-checkout works in the checkout when the repository makes the worktree its\n" +
			"default. segwi worktrees lists and removes them.\n\n" +
			"With --runtime NAME, the run's agent is the ACP agent of segwi.runtimes called NAME instead of\n" +
			"Claude Code (a continued run keeps its runtime).\n\n" +
			"--budget-cost, --budget-tokens and --budget-turns set the run's budget over the settings'\n" +
			"(segwi.runs.budget); 0 or none turns a bound off. It is checked where each turn ends: a turn\n" +
			"that ends at or over it is the run's last until the budget is raised. A continued run's budget\n" +
			"is its own, counted from its start: the settings', with these flags over it.",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, a []string) error {
			o.prompt = strings.TrimSpace(strings.Join(a, " "))
			return runRun(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.kind, "kind", string(runs.KindBuild), "what the run is for: build, ready or ask")
	f.StringVar(&o.checkout, "checkout", "", "the checkout to run in (default: the current directory)")
	f.StringVar(&o.model, "model", "", "Claude Code's --model (default: segwi.claude.model, else Claude Code's own)")
	f.StringVar(&o.runtime, "runtime", "", "run the ACP agent of segwi.runtimes called `NAME` instead of Claude Code")
	f.BoolVar(&o.json, "json", false, "print each event as a JSON line instead of a readable line")
	f.StringVar(&o.continues, "continue", "", "continue the finished run `ID`, resuming its Claude Code session")
	f.BoolVar(&o.worktree, "worktree", false, "work in a new git worktree of the checkout, on a branch of the run's own")
	f.BoolVar(&o.inCheckout, "in-checkout", false, "work in the checkout itself, whatever the repository's default")
	f.StringVar(&o.budgetCost, "budget-cost", "", "the run's cost budget in US dollars, e.g. 2.00 (0 or none: no bound; default segwi.runs.budget.cost)")
	f.StringVar(&o.budgetTokens, "budget-tokens", "", "the run's token budget (0 or none: no bound; default segwi.runs.budget.tokens)")
	f.StringVar(&o.budgetTurns, "budget-turns", "", "the run's budget of turns (0 or none: no bound; default segwi.runs.budget.turns)")
	cmd.MarkFlagsMutuallyExclusive("worktree", "in-checkout")
	return cmd
}

// runRun starts the run described by o, prints its events until it ends and returns nil
// when it succeeded. It returns when the run has ended; ctx being done (SIGINT, SIGTERM)
// stops it in two steps.
func runRun(ctx context.Context, env *Env, o runOptions) error {
	spec, err := runSpec(o)
	if err != nil {
		return err
	}
	lessGC()
	res, st, err := env.LoadSettings()
	if err != nil {
		return err
	}
	// The signals are watched from here on, so that none is missed between the polite stop
	// and the kill; Main's context sees the same ones.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	c, stopPage, err := startCore(ctx, env, res, st, true)
	if err != nil {
		return err
	}
	defer c.Close() //nolint:errcheck // it kills what is left; nothing more to do
	defer stopPage()
	// The first Ctrl-C (or ctx's end) stops the run through its context, whichever comes
	// first and however often; a second kills it (Stop).
	runCtx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	var r *runs.Run
	if o.continues != "" {
		r, err = c.Continue(runCtx, o.continues, spec.Prompt, false, spec.Budget)
	} else {
		r, err = c.Start(runCtx, spec)
	}
	if errors.Is(err, claude.ErrNotFound) {
		return fmt.Errorf("%w\n(settings file: %s)", err, res.File)
	}
	if err != nil {
		return err
	}
	info := r.Info()
	fmt.Fprintf(env.Stderr, "segwi: run %s (%s in %s); its record is in %s\n", r.ID(), info.Kind, info.Checkout, r.Dir())
	if info.ContinuedFrom != "" {
		fmt.Fprintf(env.Stderr, "segwi: it continues run %s, resuming its %s session\n", info.ContinuedFrom, approvals.AgentWords(info.Runtime))
	}
	if top, _ := runs.CheckoutDir(spec.Checkout); info.Worktree != nil || o.continues == "" && top != info.Checkout {
		fmt.Fprintf(env.Stderr, "segwi: it works in a git worktree of its own; segwi worktrees remove %s removes it\n", r.ID())
	}

	// The lines go out in writes of up to 64 KiB, whenever no more events wait; then the
	// loop takes no event for printPause, so that a flood of output is printed in a few
	// batches a second rather than with a wake-up of this goroutine for each event.
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	p := &printer{out: out, json: o.json}
	events, cancel := r.Subscribe()
	defer cancel()
	done := ctx.Done()
	var pause <-chan time.Time
	signals, cancelled, stops := 0, 0, 0
	var last os.Signal
	for events != nil {
		next := events
		if pause != nil {
			next = nil
		}
		select {
		case e, ok := <-next:
			if !ok {
				events = nil
				continue
			}
			p.print(e)
			if len(events) == 0 {
				out.Flush() //nolint:errcheck // a closed stdout must not stop the run
				pause = time.After(printPause)
			}
		case <-pause:
			pause = nil
		case <-done:
			done, cancelled = nil, 1
		case last = <-sigs:
			signals++
		}
		// One SIGINT both cancels ctx and arrives on sigs, in either order: the stops asked
		// for are the signals counted, or one for a context cancelled without a signal.
		for ; stops < max(signals, cancelled) && stops < 2; stops++ {
			out.Flush() //nolint:errcheck // the lines printed, before what segwi says
			if stops == 0 {
				fmt.Fprintf(env.Stderr, "segwi: stopping run %s (Ctrl-C again to kill it at once)\n", r.ID())
				stopRun(stopCause(ctx, last)) // nothing more when ctx's end stopped it already
			} else {
				fmt.Fprintf(env.Stderr, "segwi: killing run %s\n", r.ID())
				r.Stop()
			}
		}
	}
	out.Flush() //nolint:errcheck // as above
	// The events channel closed: the run has ended.
	info, _ = r.Wait(context.Background())
	fmt.Fprintln(env.Stderr, p.summary(info))
	if info.State != runs.StateSucceeded {
		return &silentError{ExitError}
	}
	return nil
}

// stopCause is why segwi run stops its run: ctx's end, or the signal it got.
func stopCause(ctx context.Context, sig os.Signal) error {
	if ctx.Err() != nil || sig == nil {
		return context.Cause(ctx)
	}
	return errors.New(sig.String() + " signal received")
}

// printPause is how long segwi run takes no event after printing all that waited: a
// person does not see 10 ms, and the process saves most of its wake-ups (a 200 MB run
// cost 4.3 CPU-seconds with it, about 7 without).
const printPause = 10 * time.Millisecond

// startCore starts segwi's core for a command that runs Claude Code, with the settings res
// the command loaded and st in force for them: approvals go to the person at the
// controlling terminal, and what the core finds wrong at start (damaged run records) is a
// warning on stderr. With page and segwi.remote.enabled (in force: an edit turning it on
// waits for the person), they also go to the approval page on the tailnet, which serves
// until ctx is done or stop is called (the first answer wins, from the terminal or the
// page); stop returns once the page has stopped.
func startCore(ctx context.Context, env *Env, res *settings.Result, st settings.Standing, page bool) (c *core.Core, stop func(), err error) {
	warn := logger.To(env.Stderr, "warning: ")
	var decider approvals.Decider = approvals.NewTerminalDecider()
	var h *hub.Hub
	if page && st.Settings.Remote.Enabled {
		// What the page logs (where it listens, each refusal, each answer) is news, not a
		// warning.
		say := logger.To(env.Stderr, "segwi: ")
		h = hub.New(hub.Options{Program: "segwi run", Log: say})
		decider = approvals.FirstAnswer(decider, h)
	}
	c, err = core.New(core.Config{ConfigPath: res.File, Settings: res, Standing: &st, Decider: decider, Log: warn})
	if err != nil || h == nil {
		return c, func() {}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() {
		defer close(served)
		h.Run(ctx, c)
	}()
	go sayWherePageIs(ctx, env.Stderr, h)
	return c, func() { cancel(); <-served }, nil
}

// sayWherePageIs writes to w where the approval page is served, or why it is not, each
// time that changes, until ctx is done.
func sayWherePageIs(ctx context.Context, w io.Writer, h *hub.Hub) {
	said := ""
	for {
		var line string
		switch p := h.Snapshot().Page; {
		case p.URL != "":
			line = fmt.Sprintf("segwi: approvals can be answered from your other devices at %s\n", p.URL)
		case p.Problem != "":
			line = fmt.Sprintf("warning: the approval page on the tailnet is not served: %s\n", p.Problem)
		}
		if line != said && line != "" {
			io.WriteString(w, line) //nolint:errcheck // progress only
			said = line
		}
		select {
		case <-ctx.Done():
			return
		case <-h.Changes():
		}
	}
}

// runSpec checks the command line and returns the run to start; its errors are usage
// errors.
func runSpec(o runOptions) (runs.Spec, error) {
	if o.continues != "" {
		// The kind, checkout and model are the earlier run's.
		if o.kind != string(runs.KindBuild) || o.checkout != "" || o.model != "" || o.worktree || o.inCheckout || o.runtime != "" {
			return runs.Spec{}, usageErrorf("--continue takes the kind, checkout (or worktree) model and runtime of the run it continues: leave out --kind, --checkout, --worktree, --in-checkout, --model and --runtime")
		}
		if o.prompt == "" {
			return runs.Spec{}, usageErrorf("no prompt given: write what the continued run should do next after the flags")
		}
		// Its budget is its own, counted from its start, as a new run's is.
		budget, err := runBudget(o)
		if err != nil {
			return runs.Spec{}, err
		}
		return runs.Spec{Prompt: o.prompt, Budget: budget}, nil
	}
	kind, err := runs.ParseKind(o.kind)
	if err != nil {
		return runs.Spec{}, &usageError{err}
	}
	where := runs.WhereDefault
	switch {
	case o.worktree && kind == runs.KindAsk:
		return runs.Spec{}, usageErrorf("an ask run changes nothing, so it works in the checkout: leave out --worktree")
	case o.worktree:
		where = runs.WhereWorktree
	case o.inCheckout:
		where = runs.WhereCheckout
	}
	if o.prompt == "" && kind != runs.KindReady {
		what := "task"
		if kind == runs.KindAsk {
			what = "question"
		}
		return runs.Spec{}, usageErrorf("no %s given: write it after the flags, e.g. segwi run --kind %s \"...\"", what, kind)
	}
	checkout := o.checkout
	if checkout == "" {
		if checkout, err = os.Getwd(); err != nil {
			return runs.Spec{}, fmt.Errorf("finding the current directory: %w", err)
		}
	}
	// The check Start makes, early: a wrong folder is a wrong command line (exit 2).
	if _, err := runs.CheckoutDir(checkout); err != nil {
		return runs.Spec{}, &usageError{err}
	}
	runtime := o.runtime
	if runtime == settings.BuiltinRuntime {
		runtime = "" // Claude Code, the default
	}
	budget, err := runBudget(o)
	if err != nil {
		return runs.Spec{}, err
	}
	return runs.Spec{Kind: kind, Checkout: checkout, Prompt: o.prompt, Model: o.model, Where: where, Runtime: runtime, Budget: budget}, nil
}

// runBudget is the run's own budget from the --budget-* flags (runs.Spec.Budget): nil
// when none is given; its errors are usage errors.
func runBudget(o runOptions) (*runs.Budget, error) {
	if o.budgetCost == "" && o.budgetTokens == "" && o.budgetTurns == "" {
		return nil, nil
	}
	b := runs.KeepAll
	var err error
	if o.budgetCost != "" {
		if b.CostUSD, err = runs.ParseBudgetCost(o.budgetCost); err != nil {
			return nil, usageErrorf("--budget-cost: %v", err)
		}
	}
	if o.budgetTokens != "" {
		if b.Tokens, err = runs.ParseBudgetCount(o.budgetTokens); err != nil {
			return nil, usageErrorf("--budget-tokens: %v", err)
		}
	}
	if o.budgetTurns != "" {
		n, err := runs.ParseBudgetCount(o.budgetTurns)
		if err != nil || n > settings.MaxBudgetTurns {
			if err == nil {
				err = fmt.Errorf("%d is more than %d", n, settings.MaxBudgetTurns)
			}
			return nil, usageErrorf("--budget-turns: %v", err)
		}
		b.Turns = int(n)
	}
	return &b, nil
}

// printer prints a run's events, readable or as JSON lines, and remembers what the end
// summary needs.
type printer struct {
	out      io.Writer
	json     bool
	narrator runs.Narrator // the words of each event, naming the call a result belongs to

	mcp        string // the approvals server's status in the session's init, when not connected
	lastOutput string // the last line Claude Code printed that was not an event
	// reached is the run's budget when a turn ended at or over it: the run sends one
	// message, so it ends there, and goes on only as a continued run.
	reached *runs.Budget
}

func (p *printer) print(e runs.Event) {
	switch e.Type {
	case runs.EventInit:
		if e.Init != nil {
			for _, s := range e.Init.MCPServers {
				if s.Name == approvals.ServerName && s.Status != "connected" {
					p.mcp = s.Status
				}
			}
		}
	case runs.EventOutput:
		if !onlyEscapes(e.Text) {
			p.lastOutput = strings.TrimSpace(e.Text)
		}
	case runs.EventBudget:
		if e.Subtype == "reached" && e.Budget != nil {
			p.reached = &e.Budget.Budget
		}
	}
	if p.json {
		b, err := e.AppendJSON(nil)
		if err != nil {
			return
		}
		p.out.Write(append(b, '\n')) //nolint:errcheck // a closed stdout must not stop the run
		return
	}
	if e.Type == runs.EventOutput && onlyEscapes(e.Text) {
		return // the terminal escapes Claude Code prints on exit mean nothing to a reader
	}
	if line := p.narrator.Line(e); line != "" { // "" when it says nothing new
		io.WriteString(p.out, line+"\n") //nolint:errcheck // as above
	}
}

// summary is the line that ends segwi run, on stderr.
func (p *printer) summary(info runs.Info) string {
	var b strings.Builder
	fmt.Fprintf(&b, "segwi: run %s %s", info.ID, info.State)
	if info.Reason != "" {
		fmt.Fprintf(&b, ": %s", info.Reason)
	}
	turns := "turns"
	if info.Turns == 1 {
		turns = "turn"
	}
	fmt.Fprintf(&b, " (%d %s, $%.4f)", info.Turns, turns, info.CostUSD)
	if info.State != runs.StateSucceeded {
		if p.mcp != "" {
			fmt.Fprintf(&b, "\nsegwi: Claude Code could not use segwi's approvals server (MCP server %q: %s), so no call could be put to a person; the run's events have the details", approvals.ServerName, p.mcp)
		}
		if p.lastOutput != "" {
			fmt.Fprintf(&b, "\nsegwi: Claude Code said: %s", p.lastOutput)
		}
	}
	if p.reached != nil {
		// A cost budget cuts the turn (the run failed); tokens or turns are reached as the
		// one turn ends, which nothing cut.
		what := "ended at its budget"
		if info.State == runs.StateSucceeded {
			what = "reached its budget as its turn ended"
		}
		fmt.Fprintf(&b, "\nsegwi: the run %s; to go on, continue it with a budget of its own, counted from its start (here this run's again):\n  %s", what, continueLine(info.ID, *p.reached))
	}
	fmt.Fprintf(&b, "\nsegwi: segwi runs show %s and segwi runs events %s show the record", info.ID, info.ID)
	return b.String()
}

// continueLine is the command line that continues the run id with the budget b, for a
// person to copy and finish with what the run should do next.
func continueLine(id string, b runs.Budget) string {
	line := "segwi run --continue " + id
	if b.CostUSD > 0 {
		line += " --budget-cost " + strconv.FormatFloat(b.CostUSD, 'f', -1, 64)
	}
	if b.Tokens > 0 {
		line += " --budget-tokens " + strconv.FormatInt(b.Tokens, 10)
	}
	if b.Turns > 0 {
		line += " --budget-turns " + strconv.Itoa(b.Turns)
	}
	return line + ` "..."`
}

// onlyEscapes reports whether text holds nothing but terminal escapes, control characters
// and white space. A run's output events come without escapes already; a record written by
// an older segwi may still hold them.
func onlyEscapes(text string) bool {
	return len(bytes.TrimSpace(visible.StripTerminal([]byte(text)))) == 0
}

// runGCPercent is segwi run's GOGC. A run's process keeps a small heap (1 to 2 MB live:
// it streams the output to the record), and with Go's default of 100 it collected three
// times in a short run, 3 to 7 ms of CPU, a share of segwi's own cost of a run; at 400
// its heap may grow to five times what is live, a few MB more, and a short run collects
// once at most.
const runGCPercent = 400

// lessGC sets runGCPercent, unless the person set GOGC.
func lessGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(runGCPercent)
	}
}
