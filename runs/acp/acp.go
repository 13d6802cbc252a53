// Package acp is an agent that speaks the Agent Client Protocol (ACP: JSON-RPC 2.0, one
// message a line, on the agent program's standard input and output) as a runtime of
// segwi's runs (runs.Runtime): codex-acp, claude-agent-acp, gemini --experimental-acp,
// or any command the person lists under segwi.runtimes, a sandbox's relay included.
//
// segwi is the protocol's client, on github.com/coder/acp-go-sdk: it starts the command
// in the run's checkout (in the run's process group and cgroup, as Claude Code), sends
// initialize, session/new (or session/load for a continued run, where the agent offers
// it), session/prompt for the task and for each follow-up, and session/cancel when the
// run is stopped. It offers the agent no file system and no terminal of its own: the
// agent uses its own tools, in the checkout, as the person.
//
// Every session/request_permission is put to segwi's approvals server as Claude Code's
// approval tool would put it, with the run's token: a person answers, or a trusted rule
// for an execute call whose command is a plain script, or the timeout, which denies. The
// answer picks the agent's allow-once or reject-once option, never an "always" one. In an
// ask run, a request to edit, delete or move is refused without asking.
//
// What the agent says (session/update), each turn's end and the lines it writes on
// stderr become lines of the session's output, one JSON object a line (see line), which
// the run redacts and records and Parse turns into segwi's events.
package acp

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/segwi/segwi/runs"
)

// Runtime is an ACP agent of segwi.runtimes: the program Command names, started with Env
// added to the run's environment.
type Runtime struct {
	RuntimeName string            // segwi.runtimes[].name: how a run and a person call it
	Command     []string          // the program (looked up in PATH, or a path) and its arguments
	Env         map[string]string // added to the run's environment, over what is there
}

// Name is the runtime's name, as a run's reasons call its agent: "codex exited with code 1".
func (rt Runtime) Name() string { return rt.RuntimeName }

// ErrNotFound is wrapped by Check's error, and so by Manager.Start's, when the runtime's
// program is not there.
var ErrNotFound = errors.New("ACP agent's program not found")

// Check says whether the runtime's program is found; its error wraps ErrNotFound and says
// what to do.
func (rt Runtime) Check() error {
	_, err := rt.program()
	return err
}

func (rt Runtime) program() (string, error) {
	if len(rt.Command) == 0 || rt.Command[0] == "" {
		return "", fmt.Errorf("%w: runtime %q has no command (segwi.runtimes)", ErrNotFound, rt.RuntimeName)
	}
	p, err := exec.LookPath(rt.Command[0])
	if err != nil {
		return "", fmt.Errorf("%w: %s, the command of runtime %q (segwi.runtimes), is not found: install it, or write the full path of its program", ErrNotFound, rt.Command[0], rt.RuntimeName)
	}
	return p, nil
}

// Start starts the agent for l through l.Start, with pipes for its standard files, and
// returns its session at once: the protocol's handshake (initialize, session/new) goes on
// on a goroutine of the session's, and the first message waits for it.
func (rt Runtime) Start(l runs.Launch) (runs.Session, error) {
	prog, err := rt.program()
	if err != nil {
		return nil, err
	}
	var files []*os.File
	pipe := func() (r, w *os.File) {
		if err != nil {
			return nil, nil
		}
		r, w, err = os.Pipe()
		files = append(files, r, w)
		return r, w
	}
	inR, inW := pipe()
	outR, outW := pipe()
	errR, errW := pipe()
	if err != nil {
		for _, f := range files {
			f.Close()
		}
		return nil, fmt.Errorf("creating the agent's pipes: %w", err)
	}
	cmd := &exec.Cmd{
		Path:   prog,
		Args:   slices.Clone(rt.Command),
		Dir:    l.Checkout,
		Env:    withEnv(l.Env, rt.Env),
		Stdin:  inR,
		Stdout: outW,
		Stderr: errW,
	}
	err = l.Start(cmd)
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	return newSession(l, rt.RuntimeName, rt.Command[0], inW, outR, errR), nil
}

// withEnv returns base with each of extra set, over a value base has for it.
func withEnv(base []string, extra map[string]string) []string {
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, over := extra[name]; !over {
			out = append(out, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		out = append(out, k+"="+extra[k])
	}
	return out
}
