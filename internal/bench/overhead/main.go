// Command overhead measures what segwi adds to a Claude Code run: the wall time of the
// same scripted run started directly (claude -p, the prompt on a stdin pipe) and started
// by `segwi run`, several times each, alternating, against the project's fake model
// server. It prints each time, the median and mean of both, their ratio and difference,
// and whether segwi stays within the goal (at most 10 % and at most 150 ms more).
//
// Two more variants split segwi's overhead: direct+tool starts Claude Code directly with
// the approval tool wired as segwi wires it (--permission-prompt-tool and --mcp-config to
// an approvals server in this process), and tool+pty does the same with stdout and stderr
// a raw pty, as segwi starts it. What is left (segwi - tool+pty) is segwi's own process:
// its start, settings, keyring, approvals server, and reading, recording and printing
// the events.
//
// scripts/bench-overhead.sh builds segwi and runs this; see there for the flags.
//
// Everything runs sealed from the person's files: Claude Code and segwi get a temporary
// HOME, TMPDIR, XDG folders and settings file, and talk only to the fake server on
// loopback.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/fakeapi"
)

// The goal of issue 7: segwi adds at most this much to a run.
const (
	goalRatio = 1.10
	goalDiff  = 150 * time.Millisecond
)

// prompt is the scenario's task; the fake model does the same whatever it says.
const prompt = "List the files of this checkout."

func main() {
	claude := flag.String("claude", "", "the Claude Code binary (required)")
	segwi := flag.String("segwi", "", "the segwi binary (required)")
	n := flag.Int("n", 10, "runs of each, alternating")
	warmup := flag.Int("warmup", 1, "runs of each before measuring, not counted")
	strict := flag.Bool("strict", false, "exit 1 when segwi misses the goal")
	timeout := flag.Duration("timeout", 60*time.Second, "the longest one run may take")
	verbose := flag.Bool("v", false, "print each segwi run's events (JSON lines, with times)")
	flag.Parse()
	if *claude == "" || *segwi == "" || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: overhead -claude PATH -segwi PATH [-n 10] [-warmup 1] [-strict] [-v]")
		os.Exit(2)
	}
	met, err := run(*claude, *segwi, *n, *warmup, *timeout, *verbose)
	if err != nil {
		fmt.Fprintln(os.Stderr, "overhead:", err)
		os.Exit(1)
	}
	if *strict && !met {
		os.Exit(1)
	}
}

// scenario is the model's side: text and a Bash ls, then a final text. Turns answers by
// the conversation's own turn, so every run gets the same two replies.
func scenario() fakeapi.Script {
	return func(req *fakeapi.Request) fakeapi.Reply {
		switch req.Turn() {
		case 0:
			return fakeapi.Say(fakeapi.Text("Let me look."),
				fakeapi.ToolUse("Bash", fakeapi.Input{"command": "ls", "description": "List files"}))
		case 1:
			return fakeapi.Say(fakeapi.Text("The checkout holds README.md."))
		}
		return fakeapi.Unexpected("turn %d is past the scenario", req.Turn())
	}
}

// timing is one run's wall time and when, from exec, its phases began: segwi's run
// running (Claude Code exec'd; zero for a direct run), the session's init event, and the
// result event.
type timing struct {
	wall, running, init, result time.Duration
}

func (t timing) String() string {
	s := fmt.Sprintf("%7.1f ms (", ms(t.wall))
	if t.running > 0 {
		s += fmt.Sprintf("claude exec'd %5.1f, ", ms(t.running))
	}
	return s + fmt.Sprintf("init %6.1f, result %6.1f)", ms(t.init), ms(t.result))
}

// bench is one sealed setup: the fake server, the environment, a checkout, and segwi's
// settings file.
type bench struct {
	claude, segwi string
	env           []string
	checkout      string
	config        string
	timeout       time.Duration
	verbose       bool // print what each segwi run printed
	approvals     *approvals.Server
	toolArgs      []string // --permission-prompt-tool and --mcp-config, for direct+tool
}

func run(claude, segwi string, n, warmup int, timeout time.Duration, verbose bool) (met bool, err error) {
	for _, p := range []*string{&claude, &segwi} {
		if *p, err = exec.LookPath(*p); err != nil {
			return false, err
		}
		if *p, err = filepath.Abs(*p); err != nil {
			return false, err
		}
	}
	srv, err := fakeapi.Start(scenario())
	if err != nil {
		return false, err
	}
	defer srv.Close()
	root, err := os.MkdirTemp("", "segwi-bench-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(root)
	b, err := setUp(root, srv.URL, claude, segwi, timeout)
	if err != nil {
		return false, err
	}
	b.verbose = verbose

	fmt.Printf("claude %s\nsegwi  %s\nfake model server %s; %d runs of each variant, alternating, after %d warm-up run(s) each\n",
		claude, segwi, srv.URL, n, warmup)
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average before: %s", load)
	}
	// The approval tool as segwi wires it, for the third variant: Claude Code started
	// directly but with --permission-prompt-tool and --mcp-config, which tells segwi's own
	// cost from the cost of the approval tool's MCP connection inside Claude Code.
	if err := b.wireApprovals(root); err != nil {
		return false, err
	}
	defer b.approvals.Close()

	variants := []struct {
		name string
		run  func() (timing, error)
	}{
		{"direct", func() (timing, error) { return b.direct(false, false) }},
		{"segwi", b.viaSegwi},
		{"direct+tool", func() (timing, error) { return b.direct(true, false) }},
		{"tool+pty", func() (timing, error) { return b.direct(true, true) }},
	}
	times := make([][]timing, len(variants))
	for i := range warmup + n {
		label := "warm-up"
		if i >= warmup {
			label = fmt.Sprintf("run %2d ", i-warmup+1)
		}
		for v, variant := range variants {
			t, err := variant.run()
			if err != nil {
				return false, fmt.Errorf("%s run %d: %w", variant.name, i+1, err)
			}
			if i >= warmup {
				times[v] = append(times[v], t)
			}
			fmt.Printf("%s %-11s %s\n", label, variant.name, t)
		}
	}
	if problems := srv.Problems(); len(problems) > 0 {
		return false, fmt.Errorf("the fake server saw requests it did not expect: %s", strings.Join(problems, "; "))
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average after: %s", load)
	}

	phase := func(ts []timing, f func(timing) time.Duration) time.Duration {
		var ds []time.Duration
		for _, t := range ts {
			ds = append(ds, f(t))
		}
		return median(ds)
	}
	wall := func(t timing) time.Duration { return t.wall }
	for v, variant := range variants {
		var walls []time.Duration
		for _, t := range times[v] {
			walls = append(walls, t.wall)
		}
		fmt.Printf("%-11s median %7.1f ms  mean %7.1f ms   (medians from exec: claude exec'd %5.1f, init %6.1f, result %6.1f ms)\n",
			variant.name, ms(median(walls)), ms(mean(walls)),
			ms(phase(times[v], func(t timing) time.Duration { return t.running })),
			ms(phase(times[v], func(t timing) time.Duration { return t.init })),
			ms(phase(times[v], func(t timing) time.Duration { return t.result })))
	}
	dMed, sMed, tMed, pMed := phase(times[0], wall), phase(times[1], wall), phase(times[2], wall), phase(times[3], wall)
	ratio := float64(sMed) / float64(dMed)
	diff := sMed - dMed
	fmt.Printf("segwi / direct (medians) %.3f, difference %+.1f ms\n", ratio, ms(diff))
	fmt.Printf("  the approval tool inside Claude Code (direct+tool - direct) %+.1f ms; the pty (tool+pty - direct+tool) %+.1f ms;\n"+
		"  segwi's own process (segwi - tool+pty) %+.1f ms\n", ms(tMed-dMed), ms(pMed-tMed), ms(sMed-pMed))
	met = ratio <= goalRatio && diff <= goalDiff
	verdict := "met"
	if !met {
		verdict = "MISSED"
	}
	fmt.Printf("goal (segwi at most +%.0f %% and +%d ms over direct): %s\n", (goalRatio-1)*100, goalDiff.Milliseconds(), verdict)
	return met, nil
}

// wireApprovals starts an approvals server in this process, registers a run with it and
// writes its --mcp-config file, as segwi does for each run.
func (b *bench) wireApprovals(root string) error {
	srv, err := approvals.NewServer(approvals.Config{Decider: denyAll{}})
	if err != nil {
		return err
	}
	reg, err := srv.Register(approvals.RunInfo{ID: "bench", Kind: "build", Checkout: b.checkout}, benchRun{})
	if err != nil {
		srv.Close()
		return err
	}
	path := filepath.Join(root, "mcp.json")
	if err := os.WriteFile(path, reg.MCPConfig(), 0o600); err != nil {
		srv.Close()
		return err
	}
	b.approvals = srv
	b.toolArgs = []string{"--permission-prompt-tool", approvals.PromptTool, "--mcp-config", path}
	return nil
}

// denyAll answers the approval requests of the direct+tool variant; the scenario makes
// none.
type denyAll struct{}

func (denyAll) Decide(context.Context, approvals.Request) (approvals.Answer, error) {
	return approvals.Answer{By: approvals.ByNoTerminal, Message: "the benchmark asks nobody"}, nil
}

// benchRun is the approvals.Run of the direct+tool variant: nothing to record.
type benchRun struct{}

func (benchRun) RecordApproval(approvals.Record) {}
func (benchRun) SetPending(int)                  {}
func (benchRun) Stop()                           {}
func (benchRun) Connected()                      {}

// ToolCallRunning says yes: this variant does not read Claude Code's output, where the
// calls it makes appear.
func (benchRun) ToolCallRunning(context.Context, string) bool { return true }

// setUp makes the sealed folders, the checkout and segwi's settings under root.
func setUp(root, url, claude, segwi string, timeout time.Duration) (*bench, error) {
	dirs := map[string]string{}
	for _, name := range []string{"home", "tmp", "run", "config", "state", "data", "cache", "checkout"} {
		dirs[name] = filepath.Join(root, name)
		if err := os.MkdirAll(dirs[name], 0o700); err != nil {
			return nil, err
		}
	}
	lang := cmp.Or(os.Getenv("LANG"), "C.UTF-8")
	env := []string{
		"HOME=" + dirs["home"], "TMPDIR=" + dirs["tmp"], "XDG_RUNTIME_DIR=" + dirs["run"],
		"XDG_CONFIG_HOME=" + dirs["config"], "XDG_STATE_HOME=" + dirs["state"],
		"XDG_DATA_HOME=" + dirs["data"], "XDG_CACHE_HOME=" + dirs["cache"],
		"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=sk-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"PATH=" + os.Getenv("PATH"), "LANG=" + lang,
		"GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
	}
	// segwi's keyring look-up goes to the session bus the benchmark was given (see
	// scripts/bench-overhead.sh); Claude Code does not use it.
	if bus := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); bus != "" {
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+bus)
	}
	co := dirs["checkout"]
	if err := os.WriteFile(filepath.Join(co, "README.md"), []byte("# bench\n"), 0o644); err != nil {
		return nil, err
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "add", "README.md"},
		{"-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", "bench"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = co, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	config := filepath.Join(dirs["config"], "segwi", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		return nil, err
	}
	body := "segwi:\n  claude:\n    path: " + yamlQuote(claude) + "\n"
	if err := os.WriteFile(config, []byte(body), 0o600); err != nil {
		return nil, err
	}
	env = append(env, "SEGWI_CONFIG="+config)
	return &bench{claude: claude, segwi: segwi, env: env, checkout: co, config: config, timeout: timeout}, nil
}

// yamlQuote quotes s as a YAML double-quoted string (JSON's quoting is valid YAML).
func yamlQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// direct runs Claude Code as a person would script it: print mode, stream-json in and
// out, auto mode, the prompt on a stdin pipe that closes after the result. It returns the
// time from exec to exit.
func (b *bench) direct(tool, usePTY bool) (timing, error) {
	var t timing
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	args := []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json",
		"--verbose", "--permission-mode", "auto"}
	if tool {
		args = append(args, b.toolArgs...)
	}
	cmd := exec.CommandContext(ctx, b.claude, args...)
	cmd.Dir, cmd.Env = b.checkout, b.env
	var stderr bytes.Buffer
	var stdout io.Reader
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return t, err
	}
	if usePTY {
		// As segwi starts it: stdout and stderr a raw pty that is the controlling terminal.
		master, tty, err := pty.Open()
		if err != nil {
			return t, err
		}
		defer master.Close()
		defer tty.Close()
		if err := pty.Setsize(tty, &pty.Winsize{Rows: 50, Cols: 200}); err != nil {
			return t, err
		}
		if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
			return t, err
		}
		cmd.Stdout, cmd.Stderr = tty, tty
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 1}
		stdout = master
	} else {
		cmd.Stderr = &stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if stdout, err = cmd.StdoutPipe(); err != nil {
			return t, err
		}
	}
	msg, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}})
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return t, err
	}
	if tty, ok := cmd.Stdout.(*os.File); ok {
		tty.Close() // the child has it; the master reads EIO once the child is gone
	}
	if _, err := stdin.Write(append(msg, '\n')); err != nil {
		return t, err
	}
	var result string
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var line struct {
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			if usePTY {
				stderr.Write(append(sc.Bytes(), '\n')) // stderr shares the pty
			}
			continue
		}
		switch {
		case line.Type == "system" && line.Subtype == "init" && t.init == 0:
			t.init = time.Since(start)
		case line.Type == "result":
			t.result = time.Since(start)
			result = line.Subtype
			stdin.Close()
		}
	}
	stdin.Close()
	err = cmd.Wait()
	t.wall = time.Since(start)
	if err != nil || result != "success" {
		return t, fmt.Errorf("claude ended with %v and result %q: %s", err, result, lastLines(stderr.String()))
	}
	return t, nil
}

// viaSegwi runs the same task with `segwi run` and returns the time from exec to exit.
func (b *bench) viaSegwi() (timing, error) {
	var t timing
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.segwi, "run", "--json", "--checkout", b.checkout, prompt)
	cmd.Dir, cmd.Env = b.checkout, b.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	t.wall = time.Since(start)
	if b.verbose {
		fmt.Fprintf(os.Stderr, "--- segwi run (exec at %s):\n%s%s\n", start.Format("15:04:05.000"), out.String(), errOut.String())
	}
	if err != nil {
		return t, fmt.Errorf("segwi run: %v: %s", err, lastLines(errOut.String()))
	}
	// The events' times come from the same clock: they place the phases.
	for line := range strings.Lines(out.String()) {
		var e struct {
			Time  time.Time `json:"time"`
			Type  string    `json:"type"`
			State *struct {
				To string `json:"to"`
			} `json:"state"`
		}
		if json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		at := e.Time.Sub(start)
		switch {
		case e.Type == "state" && e.State != nil && e.State.To == "running" && t.running == 0:
			t.running = at
		case e.Type == "init" && t.init == 0:
			t.init = at
		case e.Type == "result":
			t.result = at
		}
	}
	if t.result == 0 || !strings.Contains(errOut.String(), "succeeded") {
		return t, fmt.Errorf("segwi run did not succeed: %s", lastLines(errOut.String()))
	}
	return t, nil
}

func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], "\n")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
