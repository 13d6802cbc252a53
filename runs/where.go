package runs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/runs/ports"
	"github.com/segwi/segwi/runs/worktree"
)

// maxSetupLine is where a line of the setup command's output is cut in the record.
const maxSetupLine = 4 << 10

// repositoryOf returns the configured repository whose checkout is checkout.
func (c Config) repositoryOf(checkout string) (Repository, bool) {
	return repositoryOf(c.Repositories, checkout)
}

// RemoteOf is the remote of the repository of repos whose checkout is checkout, whose
// tracking branches say what of a worktree's branch was pushed: its configured remote, or
// settings' default (origin) when it names none or is not configured.
func RemoteOf(repos []Repository, checkout string) string {
	if r, ok := repositoryOf(repos, checkout); ok && r.Remote != "" {
		return r.Remote
	}
	return "origin"
}

func repositoryOf(repos []Repository, checkout string) (Repository, bool) {
	for _, r := range repos {
		p := filepath.Clean(r.Path)
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if p == checkout {
			return r, true
		}
	}
	return Repository{}, false
}

// place decides where the run r, of spec in checkout, works: in the worktree again of the
// run it continues (again), in a new one (spec.Where, else its repository's default for a
// build or ready run), or in the checkout. For a new worktree, r's checkout is the folder
// the worktree will be made in, so that the run holds that folder, not the repository's
// checkout, and runs in other worktrees of it go side by side. It is called before the run
// has an owner.
func place(cfg Config, r *Run, spec Spec, checkout string, again *worktree.Worktree) error {
	if again != nil {
		r.info.Worktree = again
		return nil
	}
	repo, known := cfg.repositoryOf(checkout)
	where := spec.Where
	if where == WhereDefault && known && repo.Worktree {
		where = WhereWorktree
	}
	if where != WhereWorktree {
		return nil
	}
	if !spec.Kind.HoldsCheckout() {
		if spec.Where == WhereWorktree {
			return fmt.Errorf("an %s run changes nothing, so it works in the checkout: leave out --worktree", spec.Kind)
		}
		return nil
	}
	root := cfg.WorktreeRoot
	if root == "" {
		var err error
		if root, err = worktree.Root(cfg.Env); err != nil {
			return err
		}
	}
	name := filepath.Base(checkout)
	if known && repo.Name != "" {
		name = repo.Name
	}
	remote := repo.Remote
	if remote == "" {
		remote = "origin"
	}
	r.plan = &worktree.Plan{Root: root, Repository: checkout, Name: name, Remote: remote,
		RunID: r.id, Task: spec.Prompt, Kind: string(spec.Kind)}
	r.setup = repo.Setup
	r.checkout = worktree.PathFor(root, name, r.id)
	r.info.Checkout = r.checkout
	return nil
}

// prepare is the step of a run's start before its agent: it makes the run's worktree and
// sets it up, for a run that has a plan, or checks the worktree a continuing run works in
// again. It records each step on the run, and returns why the run cannot start ("" when
// it can). A stop cancels it (signalLocked). env is the run's environment, which the
// setup's command gets.
func (r *Run) prepare(cfg Config, env []string) string {
	r.mu.Lock()
	w := r.info.Worktree
	r.mu.Unlock()
	if r.plan == nil {
		if w == nil {
			return ""
		}
		if err := worktree.Check(*w); err != nil {
			return fmt.Sprintf("its worktree cannot be used: %v", r.m.red.String(err.Error()))
		}
		r.emit(Event{Type: EventWorktree, Text: "in " + WorktreeText(w), Worktree: w}, toFile)
		return ""
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.mu.Lock()
	if r.phase != phaseRunning {
		r.mu.Unlock()
		return ""
	}
	r.cancelPrepare = cancel
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.cancelPrepare = nil
		r.mu.Unlock()
	}()

	made, err := worktree.Make(ctx, gitcmd.New("", "", cfg.Env), *r.plan)
	if err != nil {
		if ctx.Err() != nil {
			return ""
		}
		return fmt.Sprintf("could not make its worktree: %s", r.m.red.String(err.Error()))
	}
	r.mu.Lock()
	r.emitLocked(Event{Type: EventWorktree, Text: "made " + WorktreeText(&made), Worktree: &made}, toDisk)
	if err := writeInfo(r.dir, r.info); err != nil {
		r.rec.failed(err)
	}
	r.mu.Unlock()
	r.touch()

	if r.setup.Empty() {
		return ""
	}
	timeout := r.setup.Timeout
	if timeout <= 0 {
		timeout = worktree.DefaultTimeout
	}
	setupCtx, stopSetup := context.WithTimeout(ctx, timeout)
	defer stopSetup()
	left := fmt.Sprintf("the worktree is left at %s to look at (segwi worktrees remove %s removes it)", made.Path, r.id)
	if len(r.setup.Copy) > 0 {
		say := func(text string) {
			r.touch()
			r.emit(Event{Type: EventSetup, Subtype: "copy", Text: r.m.red.String(text)}, toFile)
		}
		n, err := worktree.Copy(setupCtx, r.plan.Repository, made.Path, r.setup.Copy, say)
		if err != nil {
			return r.setupFailed(setupCtx, timeout, fmt.Sprintf("copying files: %v", err), "", left)
		}
		say(fmt.Sprintf("%s copied from %s", plural(n, "file"), r.plan.Repository))
	}
	if cmd := strings.TrimSpace(r.setup.Run); cmd != "" {
		r.emit(Event{Type: EventSetup, Subtype: "run", Text: r.m.red.String(cmd)}, toFile)
		out := &setupOutput{r: r}
		err := worktree.RunCommand(setupCtx, made.Path, cmd, env, out, r.containSetup())
		out.flush()
		if err != nil {
			return r.setupFailed(setupCtx, timeout, fmt.Sprintf("%s: %v", cmd, err), out.last, left)
		}
	}
	r.emit(Event{Type: EventSetup, Subtype: "done", Text: "the worktree is set up"}, toDisk)
	return ""
}

// setupFailed records the setup's failure and returns the run's reason: what failed, the
// last line the command printed, and where the worktree is; "" when a stop ended it.
func (r *Run) setupFailed(ctx context.Context, timeout time.Duration, what, last, left string) string {
	if r.stopAsked() {
		return ""
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		what += fmt.Sprintf(" (setup.timeout is %s)", timeout)
	}
	text := r.m.red.String("the worktree's setup failed: " + what)
	r.emit(Event{Type: EventSetup, Subtype: "failed", Text: text}, toDisk)
	if last != "" {
		text += `; its last line: "` + last + `"`
	}
	return text + "; " + left
}

// takePorts takes the run's range of TCP ports and records it; nil, with a status event
// saying why, when none could be taken: the run goes on without. The range reaches
// run.json with the record's next write, before the agent starts (its cgroup's, else its
// running state's): nothing but the run uses the ports before, and another segwi tells a
// taken range by its lock (ports.Take), not by the record.
func (r *Run) takePorts(cfg Config) *ports.Held {
	h, err := ports.Take(cfg.StateDir, cfg.Ports)
	if err != nil {
		r.emit(Event{Type: EventStatus, Subtype: "ports", Text: fmt.Sprintf("the run has no ports of its own (SEGWI_PORT): %v", err)}, toFile)
		return nil
	}
	rg := h.Range
	r.emit(Event{Type: EventPorts, Text: rg.String(), Ports: &rg}, toFile)
	return h
}

// setupOutput records the setup command's output on the run, a line at a time, redacted.
type setupOutput struct {
	r    *Run
	buf  []byte
	last string // the last line that was not blank
}

func (o *setupOutput) Write(p []byte) (int, error) {
	o.buf = append(o.buf, p...)
	for {
		i := bytes.IndexByte(o.buf, '\n')
		if i < 0 {
			if len(o.buf) > maxSetupLine {
				o.line(o.buf[:maxSetupLine])
				o.buf = append(o.buf[:0], o.buf[maxSetupLine:]...)
				continue
			}
			return len(p), nil
		}
		o.line(o.buf[:i])
		o.buf = append(o.buf[:0], o.buf[i+1:]...)
	}
}

func (o *setupOutput) flush() {
	if len(o.buf) > 0 {
		o.line(o.buf)
		o.buf = nil
	}
}

func (o *setupOutput) line(b []byte) {
	text := o.r.m.red.String(strings.TrimRight(string(b), "\r"))
	if strings.TrimSpace(text) != "" {
		o.last = oneLine(strings.TrimSpace(text), 200)
	}
	o.r.touch()
	o.r.emit(Event{Type: EventSetup, Subtype: "output", Text: text}, toFile)
}
