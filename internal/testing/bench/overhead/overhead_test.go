package overhead

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/approvals/mcpserver"
	"github.com/segwi/segwi/internal/testing/approvaltest"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/settings"
)

// The benchmark's flags; scripts/bench-overhead.sh passes them on. Claude Code is the
// harness's (claudetest.Binary: $SEGWI_TEST_CLAUDE, else the pinned one).
var (
	segwiFlag   = flag.String("segwi", "", "the segwi binary; without it the benchmark is skipped")
	runsFlag    = flag.Int("n", 10, "runs of each variant, alternating")
	warmupFlag  = flag.Int("warmup", 1, "runs of each before measuring, not counted")
	strictFlag  = flag.Bool("strict", false, "fail when segwi misses the goal")
	timeoutFlag = flag.Duration("timeout", 60*time.Second, "the longest one run may take")
	verboseFlag = flag.Bool("v", false, "print each segwi run's events (JSON lines, with times)")
	wrapFlag    = flag.String("wrap", "", "a command line to start segwi under, for a profile (perf record -g -o FILE --): its CPU then counts as segwi's")
)

// prompt is the scenario's task; the fake model does the same whatever it says.
const prompt = "List the files of this checkout."

// scenario is the model's side: text and a Bash ls, then a final text. It answers by the
// conversation's own turn, so every run gets the same two replies from the one server.
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

// bench is one sealed setup: the fake server's environment, a checkout, the segwi binary,
// and the approval tool's flags for the direct+tool variants.
type bench struct {
	t        *testing.T
	env      *claudetest.Environment
	checkout string
	segwi    string
	toolArgs []string // --permission-prompt-tool and --mcp-config
}

func TestOverhead(t *testing.T) {
	if *runsFlag < 1 || *warmupFlag < 0 {
		t.Fatalf("-n %d -warmup %d: want at least one run and no negative warm-up", *runsFlag, *warmupFlag)
	}
	b := newBench(t)
	fmt.Printf("%d runs of each variant, alternating, after %d warm-up run(s) each\n", *runsFlag, *warmupFlag)
	printLoad("before")
	variants := []struct {
		name string
		run  func() timing
	}{
		{direct, func() timing { return b.direct(nil, false) }},
		{viaSegwi, b.viaSegwi},
		{directTool, func() timing { return b.direct(b.toolArgs, false) }},
		{toolPTY, func() timing { return b.direct(b.toolArgs, true) }},
	}
	times := map[string][]timing{}
	for i := range *warmupFlag + *runsFlag {
		label := "warm-up"
		if i >= *warmupFlag {
			label = fmt.Sprintf("run %2d ", i-*warmupFlag+1)
		}
		for _, v := range variants {
			tm := v.run()
			if i >= *warmupFlag {
				times[v.name] = append(times[v.name], tm)
			}
			fmt.Printf("%s %-11s %s\n", label, v.name, tm)
		}
	}
	printLoad("after")
	if !report(os.Stdout, times) && *strictFlag {
		t.Error("segwi missed the overhead goal (-strict)")
	}
}

// newBench sets up the benchmark: the fake model server, the sealed environment, a
// checkout, segwi's settings and the approvals server of the direct+tool variants. It
// skips the test without -segwi.
func newBench(t *testing.T) *bench {
	if *segwiFlag == "" {
		t.Skip("the overhead benchmark runs from scripts/bench-overhead.sh, which builds segwi and passes -segwi")
	}
	segwi, err := filepath.Abs(*segwiFlag)
	if err != nil {
		t.Fatal(err)
	}
	claude := claudetest.Binary(t)
	srv := fakeapi.New(t, scenario())
	b := &bench{t: t, env: claudetest.Env(t, srv.URL), checkout: claudetest.Checkout(t), segwi: segwi}
	// segwi's keyring look-up goes to the session bus the benchmark was given (see
	// scripts/bench-overhead.sh); Claude Code does not use it.
	b.env.Set("DBUS_SESSION_BUS_ADDRESS", os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
	b.writeConfig(claude)
	b.storeToken()
	b.wireApprovals()
	fmt.Printf("claude %s\nsegwi  %s\nfake model server %s\n", claude, segwi, srv.URL)
	return b
}

// storeToken stores a GitHub token in the keyring the benchmark was given, with segwi
// token set, as a person who pushes has one: each run reads it, to redact it. Without a
// keyring, the runs' reads fail at once, and the benchmark says so.
func (b *bench) storeToken() {
	cmd := exec.Command(b.segwi, "token", "set")
	cmd.Env = b.env.Vars()
	cmd.Dir = b.checkout
	cmd.Stdin = strings.NewReader("ghp_" + strings.Repeat("bench0", 6) + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Printf("keyring: no token stored (%v): %s", err, out)
		return
	}
	fmt.Println("keyring: a GitHub token stored, which each run reads")
}

// printLoad prints the load average, which says how busy the machine was, and before a
// measure the system's transparent huge pages mode, which moves a fresh process's CPU by
// a quarter where page faults are dear (see hugePages).
func printLoad(when string) {
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average %s: %s", when, load)
	}
	if when != "before" {
		return
	}
	if mode := hugePages(); mode != "" {
		fmt.Printf("transparent huge pages: %s\n", mode)
	}
}

// hugePages returns the system's transparent huge pages mode (always, madvise or never),
// or "" where there is none to read. Go's runtime asks for none for its heap (it stopped
// in Go 1.21.1), so under madvise a Go process faults its heap in 4 KB pages, and under
// always in 2 MB ones: on the second machine of the README's figures, a page fault costs
// several times what it does on the first, and `segwi run`'s process took 52 to 56 ms of
// CPU at best under always against 71 to 73 under madvise, alternated.
func hugePages() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	_, mode, ok := strings.Cut(string(b), "[")
	if !ok {
		return ""
	}
	mode, _, _ = strings.Cut(mode, "]")
	return mode
}

// writeConfig writes segwi's settings where segwi looks by default in the sealed
// environment: the Claude Code binary to run, and room for -many runs at once.
func (b *bench) writeConfig(claude string) {
	path := filepath.Join(b.env.Get("XDG_CONFIG_HOME"), "segwi", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		b.t.Fatal(err)
	}
	quoted, _ := json.Marshal(claude) // JSON's quoting is valid YAML
	if err := os.WriteFile(path, []byte(fmt.Sprintf("segwi:\n  claude:\n    path: %s\n  runs:\n    maxConcurrent: %d\n",
		quoted, min(max(*manyFlag, 4), settings.MaxConcurrentLimit))), 0o600); err != nil {
		b.t.Fatal(err)
	}
}

// wireApprovals starts an approvals server in this process, registers a run with it and
// writes its --mcp-config file, as segwi does for each run, for the direct+tool variants:
// they tell segwi's own cost from the cost of the approval tool's MCP connection inside
// Claude Code.
func (b *bench) wireApprovals() {
	srv, err := mcpserver.New(mcpserver.Config{Decider: denyAll{}})
	if err != nil {
		b.t.Fatalf("starting the approvals server: %v", err)
	}
	b.t.Cleanup(func() { srv.Close() })
	reg, err := srv.Register(approvals.RunInfo{ID: "bench", Kind: "build", Checkout: b.checkout}, approvaltest.Discard{})
	if err != nil {
		b.t.Fatalf("registering the benchmark's run: %v", err)
	}
	path := filepath.Join(b.t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, reg.MCPConfig(), 0o600); err != nil {
		b.t.Fatal(err)
	}
	b.toolArgs = []string{"--permission-prompt-tool", approvals.PromptTool, "--mcp-config", path}
}

// denyAll answers the approval requests of the direct+tool variants; the scenario makes
// none.
type denyAll struct{}

func (denyAll) Decide(context.Context, approvals.Request) (approvals.Answer, error) {
	return approvals.Answer{By: approvals.ByNoTerminal, Message: "the benchmark asks nobody"}, nil
}

// direct runs Claude Code with the harness as a person would script it (print mode,
// stream-json in and out, auto mode, the prompt on a stdin pipe that closes after the
// result), with args added and, with usePTY, stdout and stderr a pty as segwi gives it.
func (b *bench) direct(args []string, usePTY bool) timing {
	res := claudetest.Run(b.t, claudetest.Options{
		Env: b.env, Dir: b.checkout, Args: args, Prompts: []string{prompt},
		Timeout: *timeoutFlag, PTY: usePTY,
	})
	if final := res.Final(b.t); res.ExitCode != 0 || final.Subtype != "success" {
		b.t.Fatalf("claude exited %d with result %q: %s", res.ExitCode, final.Subtype, lastLines(res.Stderr+res.Stdout))
	}
	tm := timing{wall: res.Wall}
	if e, ok := res.Find("system", "init"); ok {
		tm.init = e.Received.Sub(res.Started)
	}
	if e, ok := res.Find("result", ""); ok {
		tm.result = e.Received.Sub(res.Started)
	}
	return tm
}

// viaSegwi runs the same task with `segwi run` and returns the time from exec to exit.
func (b *bench) viaSegwi() timing { return b.segwiIn(b.checkout) }

// segwiIn runs the task with `segwi run` in checkout and returns the time from exec to
// exit, and segwi's own CPU: what the kernel counted for segwi's process and the processes
// it waited for (its git calls, Claude Code), less Claude Code's own as segwi recorded it
// on the run's exit event; and of that, segwi's process alone (exitedCPU).
func (b *bench) segwiIn(checkout string) timing {
	var tm timing
	ctx, cancel := context.WithTimeout(context.Background(), *timeoutFlag)
	defer cancel()
	argv := append(strings.Fields(*wrapFlag), b.segwi, "run", "--json", "--checkout", checkout, prompt)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = checkout, b.env.Vars()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Start()
	if err == nil {
		tm.processCPU, err = exitedCPU(cmd.Process.Pid)
		if waitErr := cmd.Wait(); err == nil {
			err = waitErr
		}
	}
	tm.wall = time.Since(start)
	if *verboseFlag {
		fmt.Fprintf(os.Stderr, "--- segwi run (exec at %s):\n%s%s\n", start.Format("15:04:05.000"), out.String(), errOut.String())
	}
	if err != nil {
		b.t.Fatalf("segwi run: %v: %s", err, lastLines(errOut.String()))
	}
	// The events' times come from the same clock: they place the phases.
	claudeCPU := -1.0
	var runID string
	for line := range strings.Lines(out.String()) {
		var e struct {
			Run   string    `json:"run"`
			Time  time.Time `json:"time"`
			Type  string    `json:"type"`
			State *struct {
				To string `json:"to"`
			} `json:"state"`
			Exit *struct {
				CPUSeconds float64 `json:"cpuSeconds"`
			} `json:"exit"`
		}
		if json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		at := e.Time.Sub(start)
		runID = e.Run
		switch {
		case e.Type == "init" && tm.init == 0:
			tm.init = at
		case e.Type == "result":
			tm.result = at
		case e.Type == "exit" && e.Exit != nil:
			claudeCPU = e.Exit.CPUSeconds
		}
	}
	if claudeCPU <= 0 {
		b.t.Fatalf("segwi run recorded no CPU time for Claude Code on its exit event: %s", lastLines(out.String()))
	}
	tm.claudeCPU = time.Duration(claudeCPU * float64(time.Second))
	// The run's record says when Claude Code's process started (its start reported as
	// running waits for the checkout's base besides).
	var info struct {
		Start  time.Time `json:"start"`
		Cgroup string    `json:"cgroup"`
	}
	record := filepath.Join(b.env.Get("XDG_STATE_HOME"), "segwi", "runs", runID, "run.json")
	if data, err := os.ReadFile(record); err != nil || json.Unmarshal(data, &info) != nil || info.Start.IsZero() {
		b.t.Fatalf("reading when Claude Code started from the run's record %s: %v", record, err)
	}
	tm.running = info.Start.Sub(start)
	tm.cgroup = info.Cgroup != ""
	tm.segwiCPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime() - tm.claudeCPU
	if tm.result == 0 || !strings.Contains(errOut.String(), "succeeded") {
		b.t.Fatalf("segwi run did not succeed: %s", lastLines(errOut.String()))
	}
	return tm
}

// lastLines returns s's last five lines, for a failure message.
func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], "\n")
}

// exitedCPU waits until process pid has exited, without reaping it, and returns the CPU
// time its own threads took, its children's apart: the kernel keeps the process's CPU
// clock (clock_getcpuclockid(3)), to the nanosecond, until its parent reaps it. The
// rusage a wait returns adds the children it waited for, and /proc/PID/stat counts in
// ticks of 10 ms.
func exitedCPU(pid int) (time.Duration, error) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == nil {
			break
		}
		if err != unix.EINTR {
			return 0, fmt.Errorf("waiting for process %d to exit: %w", pid, err)
		}
	}
	var ts unix.Timespec
	// MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED) of the kernel's posix-timers.h.
	if err := unix.ClockGettime(int32((^pid)<<3|2), &ts); err != nil {
		return 0, fmt.Errorf("reading the CPU clock of process %d: %w", pid, err)
	}
	return time.Duration(ts.Nano()), nil
}
