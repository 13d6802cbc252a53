package mcpserver

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/approvaltest"
	"github.com/segwi/segwi/internal/testing/await"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the responses and records of the transcripts under testdata/transcripts")

// TestTranscripts replays the MCP exchanges kept under testdata/transcripts: each is a
// txtar archive whose setup says how the server is configured and how the person answers,
// whose numbered requests are what Claude Code 2.1.328 sends over HTTP (taken from its
// traffic; only the token and the port are placeholders), and whose responses and record
// are what segwi answers and records. -update rewrites the responses and the record.
func TestTranscripts(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "transcripts", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no transcripts under testdata/transcripts (%v)", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := parseTxtar(string(raw))
			got := replay(t, want)
			if *update {
				if err := os.WriteFile(path, []byte(got.format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got.format() == string(raw) {
				return
			}
			seen := map[string]bool{}
			for _, f := range append(got.files, want.files...) {
				g, _ := got.file(f.name)
				w, _ := want.file(f.name)
				if g != w && !seen[f.name] {
					seen[f.name] = true
					t.Errorf("%s, %s:\n got:\n%swant:\n%s", path, f.name, g, w)
				}
			}
			t.Errorf("%s differs from what segwi answers now; if the change is meant, "+
				"go test ./approvals/mcpserver -run TestTranscripts -update rewrites it", path)
		})
	}
}

// transcriptSetup is a transcript's setup file: "trusted: PREFIX" lines, "timeout:
// DURATION", and "person: allow | deny [REASON] | deny-and-stop [REASON] | no-terminal |
// silent"; without a person line nobody may be asked.
type transcriptSetup struct {
	cfg    Config
	person string
	reason string
}

func parseSetup(t *testing.T, text string) transcriptSetup {
	t.Helper()
	var s transcriptSetup
	for line := range strings.Lines(text) {
		key, value, _ := strings.Cut(strings.TrimSpace(line), ": ")
		switch key {
		case "trusted":
			s.cfg.Trusted = append(s.cfg.Trusted, value)
		case "timeout":
			d, err := time.ParseDuration(value)
			if err != nil {
				t.Fatalf("setup: %v", err)
			}
			s.cfg.Timeout = d
		case "person":
			s.person, s.reason, _ = strings.Cut(value, " ")
		case "":
		default:
			t.Fatalf("setup: unknown line %q", line)
		}
	}
	return s
}

// replay runs a transcript's requests against a new server and returns the transcript
// with segwi's responses and record.
func replay(t *testing.T, in txtar) txtar {
	t.Helper()
	setupText, _ := in.file("setup")
	setup := parseSetup(t, setupText)
	p := approvaltest.NewPerson()
	setup.cfg.Decider = p
	if setup.person == "" {
		setup.cfg.Decider = approvaltest.Nobody(t)
	}
	s := newTestServer(t, setup.cfg)
	reg, run := register(t, s, "r1")
	u, _ := url.Parse(s.URL())

	out := txtar{comment: in.comment, files: []txtarFile{{"setup", setupText}}}
	for i := 1; ; i++ {
		name := fmt.Sprintf("request %d", i)
		text, ok := in.file(name)
		if !ok {
			break
		}
		req, call := transcriptRequest(t, text, u.Host, reg.Token)
		response := make(chan string, 1)
		go func() { response <- roundTrip(req) }()
		if call != nil && setup.person != "" {
			asked := p.NextAsked(t)
			if asked.ToolUseID != call.ToolUseID || string(asked.Input) != string(call.Input) {
				t.Errorf("%s: the person was shown %s %s, want %s %s as sent", name, asked.ToolUseID, asked.Input, call.ToolUseID, call.Input)
			}
			if a, ok := setup.personAnswer(asked); ok {
				p.Answer(asked.ToolUseID, a)
			}
		}
		out.files = append(out.files, txtarFile{name, text}, txtarFile{fmt.Sprintf("response %d", i), await.Recv(t, 10*time.Second, "the response", response)})
	}
	out.files = append(out.files, txtarFile{"record", renderRecord(t, run)})
	return out
}

// personAnswer is the person's answer to req, and whether they answer at all.
func (s transcriptSetup) personAnswer(req approvals.Request) (approvals.Answer, bool) {
	switch s.person {
	case "allow":
		return approvals.Answer{Allow: true, By: approvals.ByPerson}, true
	case "deny":
		return approvals.Answer{By: approvals.ByPerson, Message: s.reason}, true
	case "deny-and-stop":
		return approvals.Answer{By: approvals.ByPerson, Interrupt: true, Message: s.reason}, true
	case "no-terminal":
		return approvals.NoTerminalAnswer(req.ToolName), true
	}
	return approvals.Answer{}, false
}

// transcriptRequest turns a transcript's request into one for the server at host with
// token, and returns the approval call it carries, if any.
func transcriptRequest(t *testing.T, text, host, token string) (*http.Request, *approvals.Call) {
	t.Helper()
	head, body, ok := strings.Cut(text, "\n\n")
	if !ok {
		t.Fatalf("request without a blank line between head and body:\n%s", text)
	}
	body = strings.TrimSuffix(body, "\n")
	lines := strings.Split(head, "\n")
	method, target, _ := strings.Cut(lines[0], " ")
	target, _, _ = strings.Cut(target, " ")
	req, err := http.NewRequest(method, "http://"+host+target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range lines[1:] {
		key, value, _ := strings.Cut(line, ": ")
		value = strings.NewReplacer("TOKEN", token, "127.0.0.1:PORT", host).Replace(value)
		switch http.CanonicalHeaderKey(key) {
		case "Host":
			req.Host = value
		case "Connection", "Content-Length":
		default:
			req.Header.Add(key, value)
		}
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Arguments struct {
				Input     json.RawMessage `json:"input"`
				ToolUseID string          `json:"tool_use_id"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil {
		t.Fatalf("request body: %v\n%s", err, body)
	}
	if msg.Method != "tools/call" {
		return req, nil
	}
	return req, &approvals.Call{Input: msg.Params.Arguments.Input, ToolUseID: msg.Params.Arguments.ToolUseID}
}

// roundTrip sends req and renders the response: status, content type and body.
func roundTrip(req *http.Request) string {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%s %s\nContent-Type: %s\n\n%s", resp.Proto, resp.Status, resp.Header.Get("Content-Type"), body)
}

// renderRecord renders what the run recorded: one line per answer, and whether it was
// stopped.
func renderRecord(t *testing.T, run *approvaltest.Run) string {
	t.Helper()
	var b strings.Builder
	requests := 0
	for _, rec := range run.Records() {
		a := rec.Answer
		if a == nil {
			requests++
			continue
		}
		verb := "deny"
		if a.Allow {
			verb = "allow"
		}
		fmt.Fprintf(&b, "%s %s: %s by %s", rec.Request.ToolName, rec.Request.ToolUseID, verb, a.By)
		if a.Rule != "" {
			fmt.Fprintf(&b, " (rule %s)", a.Rule)
		}
		if a.Interrupt {
			await.Recv(t, 10*time.Second, "the run to be stopped", run.Stopped())
			b.WriteString(", and the run is stopped")
		}
		b.WriteString("\n")
	}
	if answers := strings.Count(b.String(), "\n"); requests != answers {
		t.Errorf("the run recorded %d requests and %d answers, want as many of each", requests, answers)
	}
	if !strings.Contains(b.String(), "the run is stopped") && run.Stops() != 0 {
		t.Errorf("the run was stopped %d times without a deny and stop", run.Stops())
	}
	return b.String()
}

// txtar is a txtar archive (golang.org/x/tools/txtar's format): a comment, then files
// each introduced by a "-- NAME --" line.
type txtar struct {
	comment string
	files   []txtarFile
}

type txtarFile struct{ name, data string }

func parseTxtar(s string) txtar {
	var ar txtar
	cur := &ar.comment
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "-- "); ok && strings.HasSuffix(name, " --") {
			ar.files = append(ar.files, txtarFile{name: strings.TrimSuffix(name, " --")})
			cur = &ar.files[len(ar.files)-1].data
			continue
		}
		*cur += line + "\n"
	}
	return ar
}

func (ar txtar) file(name string) (string, bool) {
	for _, f := range ar.files {
		if f.name == name {
			return f.data, true
		}
	}
	return "", false
}

func (ar txtar) format() string {
	var b strings.Builder
	b.WriteString(ar.comment)
	for _, f := range ar.files {
		fmt.Fprintf(&b, "-- %s --\n%s", f.name, f.data)
		if f.data != "" && !strings.HasSuffix(f.data, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}
