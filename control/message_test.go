package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/canary"
	"github.com/segwi/segwi/migrate"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/changes"
	"github.com/segwi/segwi/runs/worktree"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/settings/token"
)

var t0 = time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC)

// examples has one filled-in body of every message type.
func examples() []Body {
	exit := 0
	info := runs.Info{
		ID: "20250314-093000-e5dc0e", Kind: runs.KindBuild, Checkout: "/home/ada/src/web", Prompt: "fix the build",
		Model: "opus", Argv: []string{"claude", "-p"}, State: runs.StateWaiting, Reason: "an approval waits",
		Created: t0, Start: t0.Add(time.Second), End: t0.Add(time.Minute), ExitCode: &exit,
		CostUSD: 0.25, Turns: 3, SessionID: "s-1", PID: 4242,
	}
	s := settings.Default()
	s.Repositories = []settings.Repository{{Name: "web", Path: "/home/ada/src/web", Remote: "origin"}}
	s.Approvals.Trusted = []string{"git status"}
	approval := Approval{
		Request: "7", Run: RunRef{ID: info.ID, Kind: runs.KindBuild, Checkout: info.Checkout, Name: "web", Prompt: "fix the build"},
		Tool: "Bash", Input: json.RawMessage(`{"command":"git status && git diff > out.txt"}`), ToolUseID: "toolu_1",
		Asked: t0, Deadline: t0.Add(10 * time.Minute), RunEnds: true, Note: "Not checked against your trusted commands: too long.",
	}
	change := &settings.GuardedEdit{Old: settings.Guarded{Trusted: []string{"git status"}}, New: settings.Guarded{Trusted: []string{"git status", "rm"}}, Declined: true}
	return []Body{
		Hello{Version: Version, Program: "segwi test tray", Role: RoleWindow},
		Reply{Error: "run x: the run is not running", Code: CodeRunNotRunning, Run: "r1", Text: "Pushed", Token: &token.State{Set: true, APIHost: "api.github.com"},
			Changes: &ChangeSet{Base: changes.Base{Repo: "/home/ada/src/web", Branch: "main", Commit: "0123456789abcdef", Dirty: []string{"notes.txt"}, DirtyCount: 1},
				Branch: "main", Files: []changes.File{{Path: "web/login.go", Status: changes.Modified, Added: 2, Deleted: 1, Uncommitted: true}},
				MoreFiles: 3, Commits: []changes.CommitRef{{Hash: "abcdef012345", Subject: "Fix the login"}}, Path: "web/login.go",
				Diff: changes.Patch{Text: "diff --git a/web/login.go b/web/login.go\n", Cut: true, Limit: MaxDiffBytes}}},
		Runs{Runs: []Run{{Info: info, Name: "web", Dir: "/home/ada/.local/state/segwi/runs/" + info.ID}}},
		Run{Info: info, Name: "web"},
		RunEvents{Run: info.ID, Events: []runs.Event{
			{RunID: info.ID, Seq: 1, Time: t0, Type: runs.EventText, Text: "Looking at it."},
			{RunID: info.ID, Seq: 2, Time: t0, Type: runs.EventToolCall, ToolName: "Bash", ToolUseID: "toolu_1", Input: json.RawMessage(`{"command":"ls"}`)},
			{RunID: info.ID, Seq: 3, Time: t0, Type: runs.EventState, State: &runs.StateChange{From: runs.StateRunning, To: runs.StateWaiting, Reason: "an approval waits"}},
			{RunID: info.ID, Seq: 4, Time: t0, Type: runs.EventApprovalAnswer, Approval: &runs.ApprovalInfo{RequestID: "7", Allow: true, By: "person", WaitedMS: 900}},
			{RunID: info.ID, Seq: 5, Time: t0, Type: runs.EventResult, Result: &runs.ResultInfo{NumTurns: 3, CostUSD: 0.25, Usage: json.RawMessage(`{"input_tokens":5}`)}},
		}, Now: &Run{Info: info, Name: "web"}, Ended: true},
		Approvals{Waiting: []Approval{approval}},
		approval,
		ApprovalGone{Request: "7", Run: info.ID, Why: WhyAnswered, Allow: true, By: ByThisDesktop},
		SettingsReport{
			File: "/home/ada/.config/segwi/config.yaml", StateDir: "/home/ada/.local/state/segwi", Found: true,
			Settings: s, InForce: settings.Default(), Error: "segwi.runs.maxConcurrent: must be between 1 and 64, got 0",
			Edit:     change,
			Problems: []settings.Problem{{File: "/home/ada/.config/segwi/config.yaml", Key: "segwi.runs.maxConcurrent", Message: "must be between 1 and 64, got 0"}},
			Retired:  []migrate.Retired{{Key: "segwi.mcpPermissions", Setting: "segwi.mcpPermissions"}},
			Unknown:  []string{"segwi.runs.idelTimeout"},
		},
		PageStatus{On: true, Problem: "tailscale: this machine is not logged in to a tailnet: run `tailscale up` and log in"},
		Show{Window: ShowSettings, Section: SectionRemote},
		Notice{Level: Warning, Title: "segwi: retired settings", Text: "segwi.mcpPermissions is ignored", Run: info.ID},
		Show{Window: ShowNewRun, Kind: runs.KindAsk, Moment: AtStartup,
			Retired: []migrate.Retired{{Key: "segwi.mcpPermissions", Setting: "segwi.mcpPermissions"}},
			Damaged: []DamagedRecord{{Dir: "/d", File: "/d/run.json", Err: "unexpected end of JSON input"}},
			Unknown: []string{"segwi.runs.idelTimeout"}, Checks: []string{`claude not found at "claude"`}},
		Start{Kind: runs.KindBuild, Checkout: "/home/ada/src/web", Prompt: "fix the build", Model: "opus", KeepOpen: true},
		FollowUp{Run: info.ID, Text: "and the tests"},
		Finish{Run: info.ID},
		Stop{Run: info.ID},
		Push{Run: info.ID},
		Answer{Request: "7", Decision: DenyAndStop, Reason: "wrong branch", By: ByThisDesktop},
		SaveSettings{Settings: s},
		RemoveRetired{},
		CreateSettings{},
		Subscribe{Run: info.ID},
		Unsubscribe{Run: info.ID},
		CheckPush{Run: info.ID},
		ConfirmEdit{Edit: *change},
		KeepEdit{Edit: *change},
		TokenStatus{},
		SetToken{Token: "ghp_example"},
		DeleteToken{},
		CheckToken{},
		PlanGuard{},
		SetUpGuard{Digest: "3f2a"},
		Reply{TokenCheck: &TokenCheck{APIURL: "https://api.github.com", Login: "octocat", Scopes: []string{"repo"}}},
		RunCanary{},
		StopCanary{},
		Quit{},
		Commit{Run: info.ID, Message: "Fix the login", Include: []string{"notes.txt"}},
		OpenPullRequest{Run: info.ID, Base: "main", Title: "Fix the login", Body: "It works.", Draft: true},
		Continue{Run: info.ID, Prompt: "and now the tests", KeepOpen: true},
		Reply{Run: info.ID, Commit: &changes.Committed{Commit: "1a2b", Branch: "fix", Subject: "Fix", Author: "Ada <ada@example.com>", Files: []string{"a.go"}, LeftOut: []string{"notes.txt"}},
			PullRequest: &runs.PullRequest{Number: 7, URL: "https://github.com/me/web/pull/7", Head: "fix", Base: "main"}},
		Changes{Run: info.ID, Path: "web/login.go"},
		RunWindows{Runs: []string{info.ID, "20250314-101010-beef"}},
		RemoveWorktree{Run: info.ID, DeleteBranch: true, Force: true},
		RaiseBudget{Run: info.ID, By: runs.Budget{CostUSD: 1.5, Turns: 2}},
		Start{Kind: runs.KindBuild, Checkout: "/src/web", Prompt: "Fix it", Budget: &runs.Budget{CostUSD: 2, Tokens: -1, Turns: 0}},
		InspectWorktree{Run: info.ID},
		Reply{Worktree: &worktree.Loss{Changed: []string{" M a.txt"}, Unpushed: 2, BranchHead: "1a2b"}},
	}
}

func TestEveryMessageRoundTrips(t *testing.T) {
	seen := map[Type]bool{}
	for i, body := range examples() {
		typ := body.MessageType()
		seen[typ] = true
		t.Run(string(typ), func(t *testing.T) {
			m := Message{Body: body}
			if typ.IsRequest() {
				m.ID = uint64(i + 1)
			}
			data, err := Marshal(m)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			got, err := Unmarshal(data)
			if err != nil {
				t.Fatalf("Unmarshal(%s): %v", data, err)
			}
			if diff := cmp.Diff(m, got); diff != "" {
				t.Errorf("round trip (-sent +received):\n%s", diff)
			}
		})
	}
	for typ := range kinds {
		if !seen[typ] {
			t.Errorf("no example of message type %s", typ)
		}
	}
}

func TestMarshalKeepsCommandsGreppable(t *testing.T) {
	data, err := Marshal(Message{Body: examples()[6]}) // the approval
	if err != nil {
		t.Fatal(err)
	}
	if want := `git status && git diff > out.txt`; !strings.Contains(string(data), want) {
		t.Errorf("the message %s does not contain %q as written", data, want)
	}
}

func TestUnmarshalRefusesMalformedMessages(t *testing.T) {
	tests := []struct {
		name   string
		data   string
		wantID uint64
		want   string
	}{
		{"text that is not JSON", `hello`, 0, "invalid character"},
		{"an unknown type", `{"type":"format-disk","id":3,"body":{}}`, 3, `unknown message type "format-disk"`},
		{"a message without a body", `{"type":"stop","id":4}`, 4, "no body"},
		{"a body of the wrong shape", `{"type":"stop","id":5,"body":{"run":7}}`, 5, "cannot unmarshal"},
		{"a command without its run", `{"type":"stop","id":6,"body":{}}`, 6, "no run id"},
		{"an answer with an unknown decision", `{"type":"answer","id":8,"body":{"request":"1","decision":"maybe"}}`, 8, `unknown decision "maybe"`},
		{"a start of an unknown kind", `{"type":"start","id":9,"body":{"kind":"deploy","checkout":"/x"}}`, 9, `unknown run kind "deploy"`},
		{"a request without an id", `{"type":"stop","body":{"run":"r"}}`, 0, "a request without an id"},
		{"a hello of version 0", `{"type":"hello","body":{"version":0}}`, 0, "want a positive version"},
		{"run windows with an empty id", `{"type":"run-windows","id":10,"body":{"runs":["r1",""]}}`, 10, "no run id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Unmarshal([]byte(tt.data))
			var bad *MalformedError
			if !errors.As(err, &bad) {
				t.Fatalf("Unmarshal(%s) = %v, want a *MalformedError", tt.data, err)
			}
			if bad.ID != tt.wantID || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Unmarshal(%s) = id %d, %q; want id %d and an error containing %q", tt.data, bad.ID, err, tt.wantID, tt.want)
			}
		})
	}
}

func TestRolesDecideWhatAClientMaySendAndReceive(t *testing.T) {
	var commands []Type
	for typ := range kinds {
		if typ.IsCommand() {
			commands = append(commands, typ)
		}
	}
	for _, typ := range commands {
		if !RoleWindow.MaySend(typ) {
			t.Errorf("the window process may not send %s", typ)
		}
		// The page answers approvals, and a run's "budget reached" with a raise (the hub
		// takes it only for a run that waits at its budget): nothing else.
		if got, want := RoleRemote.MaySend(typ), typ == TypeAnswer || typ == TypeRaiseBudget; got != want {
			t.Errorf("the remote page may send %s: %v, want %v", typ, got, want)
		}
	}
	for typ, k := range kinds {
		if k.dir == fromTray && (RoleWindow.MaySend(typ) || RoleRemote.MaySend(typ)) {
			t.Errorf("a client may send %s, which only the tray sends", typ)
		}
		if k.dir == fromClient && (RoleWindow.Receives(typ) || RoleRemote.Receives(typ)) {
			t.Errorf("a client is sent %s, a command", typ)
		}
	}
	remoteGets := map[Type]bool{TypeHello: true, TypeReply: true, TypeRuns: true, TypeRun: true,
		TypeApprovals: true, TypeApproval: true, TypeApprovalGone: true}
	for typ := range kinds {
		if got := RoleRemote.Receives(typ); got != remoteGets[typ] {
			t.Errorf("the remote page receives %s: %v, want %v", typ, got, remoteGets[typ])
		}
	}
	if Role("admin").MaySend(TypeAnswer) || Role("").Receives(TypeRuns) {
		t.Error("a role the server never grants may do something")
	}
}

func TestBatchEventsSplitsBySizeAndKeepsOrder(t *testing.T) {
	big := strings.Repeat("x", runs.MaxFieldBytes)
	var events []runs.Event
	for i := range 40 {
		events = append(events, runs.Event{RunID: "r", Seq: int64(i + 1), Time: t0, Type: runs.EventOutput, Text: big})
	}
	// An event no message can hold: control bytes grow six-fold when escaped.
	events = append(events, runs.Event{RunID: "r", Seq: 41, Time: t0, Type: runs.EventText,
		Text: strings.Repeat("\x01", runs.MaxFieldBytes), Input: json.RawMessage(`"` + strings.Repeat(`\u0001`, runs.MaxFieldBytes/6) + `"`),
		Raw: json.RawMessage(`"` + strings.Repeat(`\u0001`, MaxMessageBytes/6) + `"`)})
	batches := BatchEvents("r", events, 0)
	var seqs []int64
	for _, b := range batches {
		data, err := Marshal(Message{Body: b})
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > MaxMessageBytes {
			t.Errorf("a batch of %d events encodes to %d bytes, over %d", len(b.Events), len(data), MaxMessageBytes)
		}
		for _, e := range b.Events {
			seqs = append(seqs, e.Seq)
		}
	}
	if len(batches) < 3 {
		t.Errorf("40 events of 256 KiB went in %d batches; want them split", len(batches))
	}
	for i, s := range seqs {
		if s != int64(i+1) {
			t.Fatalf("events out of order or missing: %v", seqs)
		}
	}
	last := batches[len(batches)-1].Events
	if e := last[len(last)-1]; !e.Truncated || !strings.Contains(e.Text, "too large") || e.Type != runs.EventText {
		t.Errorf("the oversized event became %+v; want a text event saying it is too large", e)
	}
}

// A request whose deadline is its run's end says so on every client: the popup, the run
// window and the page tell the person that the run ends then.
func TestAnApprovalKeepsThatItsDeadlineIsItsRunsEnd(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	req := approvals.Request{ID: "7", Run: approvals.RunInfo{ID: "r1"}, ToolName: "Bash", Asked: t0, Deadline: t0.Add(2 * time.Minute), RunEnds: true}
	if got := ApprovalOf(req, "web", "fix it").Broker(); !got.RunEnds || !got.Deadline.Equal(req.Deadline) {
		t.Errorf("the request as a client gets it: deadline %s, run's end %v; want %s, the run's end", got.Deadline, got.RunEnds, req.Deadline)
	}
}

func TestAnswersAndRemovalsMapToTheBroker(t *testing.T) {
	for _, tt := range []struct {
		a    Answer
		want approvals.Answer
	}{
		{Answer{Decision: Allow, Reason: "ignored", By: ByThisDesktop}, approvals.Answer{Allow: true, By: approvals.ByPerson}},
		{Answer{Decision: Deny, Reason: "not on main", By: ByThisDesktop}, approvals.Answer{By: approvals.ByPerson, Message: "not on main"}},
		{Answer{Decision: DenyAndStop, By: ByThisDesktop}, approvals.Answer{By: approvals.ByPerson, Interrupt: true}},
		{Answer{Decision: Allow, By: "phone (alice@example.com)"}, approvals.Answer{Allow: true, By: approvals.ByPerson, Who: "phone (alice@example.com)"}},
	} {
		if diff := cmp.Diff(tt.want, tt.a.Approval()); diff != "" {
			t.Errorf("%s: broker answer (-want +got):\n%s", tt.a.Decision, diff)
		}
	}
	req := approvals.Request{ID: "9", Run: approvals.RunInfo{ID: "r"}}
	for by, want := range map[approvals.Answerer]Why{
		approvals.ByPerson: WhyAnswered, approvals.ByTrusted: WhyAnswered, approvals.ByTimeout: WhyTimedOut,
		approvals.ByRunEnded: WhyRunEnded, approvals.ByCancelled: WhyWithdrawn, approvals.ByUnknownCall: WhyWithdrawn,
	} {
		g := GoneOf(req, approvals.Answer{By: by}, ByThisDesktop)
		if g.Why != want {
			t.Errorf("an answer by %s is gone as %s, want %s", by, g.Why, want)
		}
		if _, err := Marshal(Message{Body: g}); err != nil {
			t.Errorf("the removal of an answer by %s does not marshal: %v", by, err)
		}
	}
}

// A canary with no guard deny file says so across the channel: the window process shows
// what a guard hook is only then.
func TestTheCanarysMissingGuardCrossesTheChannel(t *testing.T) {
	r := Failed(fmt.Errorf("canary: %w", canary.ErrNoGuardDeny))
	if err := error(&ReplyError{Text: r.Error, Code: r.Code}); !errors.Is(err, canary.ErrNoGuardDeny) {
		t.Errorf("the reply %+v is not canary.ErrNoGuardDeny on the other side", r)
	}
}
