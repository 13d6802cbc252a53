package runs

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// childSegwiEnv names the variable that makes this test binary a segwi that starts one run
// and then waits to be killed (see runChildSegwi); its value is a childSegwi in JSON.
const childSegwiEnv = "SEGWI_RUNS_TEST_SEGWI"

// childSegwi is what a child segwi runs: one run of fakeclaude.
type childSegwi struct {
	StateDir, Checkout, Prompt, Claude string
	Env                                []string
}

// killable is a child segwi a test started, and the id of its run.
type killable struct {
	cmd *exec.Cmd
	id  string
}

// startSegwi starts this test binary as a segwi that runs c, and returns once it named
// its run. It is killed at the end of the test if it is still alive.
func startSegwi(t *testing.T, c childSegwi) killable {
	t.Helper()
	c.Claude = fakeClaude
	b, _ := json.Marshal(c)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childSegwiEnv+"="+string(b))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting a segwi: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the child segwi named no run: %v", err)
	}
	id := strings.TrimSpace(line)
	t.Cleanup(func() { // a failed test leaves no cgroup behind
		if info, err := Load(c.StateDir, id); err == nil {
			endRecordedCgroup(info, afterSegwiEnded)
		}
	})
	return killable{cmd: cmd, id: id}
}

// runChildSegwi is the child segwi of startSegwi: it starts its run, prints the run's id
// and waits to be killed. It returns only when it cannot start the run.
func runChildSegwi(spec string) error {
	var c childSegwi
	if err := json.Unmarshal([]byte(spec), &c); err != nil {
		return err
	}
	m, err := NewManager(Config{StateDir: c.StateDir, Runtime: ClaudeRuntime(c.Claude), Env: c.Env, MaxConcurrent: 1, StopGrace: time.Second})
	if err != nil {
		return err
	}
	r, err := m.Start(context.Background(), Spec{Kind: KindBuild, Checkout: c.Checkout, Prompt: c.Prompt})
	if err != nil {
		return err
	}
	fmt.Println(r.ID())
	select {}
}
