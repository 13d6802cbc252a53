package hub_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segwi/segwi/canary"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/proctest"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/settings/token"
)

// A run a window starts shows in the snapshots, its events reach the window that
// subscribed, with the run's summary, and its end ends the subscription; the runs
// published on the run's last state already leave it out, so the tray menu drops it at
// once.
func TestAWindowStartsARunAndFollowsItToItsEnd(t *testing.T) {
	claude := claudeScript(t, "read line\n"+
		`echo '{"type":"system","subtype":"init","session_id":"s","model":"m","permissionMode":"auto"}'`+"\n"+
		`echo '{"type":"assistant","message":{"content":[{"type":"text","text":"On it."}]}}'`+"\n"+
		"read line\n"+
		`echo '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.01,"result":"done"}'`+"\n"+
		"while read line; do :; done\n") // as Claude Code: it exits when its input closes (Finish)
	checkout := claudetest.Checkout(t)
	h := newHarness(t, "segwi:\n  claude:\n    path: "+claude+"\n  repositories:\n    - name: web\n      path: "+checkout+"\n", options{})
	ctx := context.Background()
	if err := h.hub.Show(ctx, control.Show{Window: control.ShowHistory}); err != nil {
		t.Fatal(err)
	}
	w := h.windows.window(t, 1)

	id, err := w.client.Start(ctx, runs.Spec{Kind: runs.KindBuild, Checkout: checkout, Prompt: "do it", KeepOpen: true})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if err := w.client.Subscribe(ctx, id); err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	await.For(t, within, "the run's text", func() bool {
		for {
			select {
			case b := <-w.events:
				if e, ok := b.(control.RunEvents); ok && slices.ContainsFunc(e.Events, func(e runs.Event) bool { return e.Text == "On it." }) {
					if e.Now == nil || e.Now.ID != id || e.Now.Name != "web" || e.Now.Dir == "" {
						t.Errorf("the events came with the summary %+v, want run %s in web with its folder", e.Now, id)
					}
					return true
				}
			default:
				return false
			}
		}
	})
	if err := w.client.FollowUp(ctx, id, "and finish"); err != nil {
		t.Fatalf("FollowUp: %v", err)
	}
	if err := w.client.Finish(ctx, id); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	// The end, as the window is told it: the subscription's last events with the run's
	// final summary, a runs snapshot that leaves the run out, and the run's final state
	// whole.
	var last *control.Run
	var runsEmpty, final bool
	await.For(t, within, "the end of the subscription, a runs snapshot without the run, and its final summary", func() bool {
		for last == nil || !runsEmpty || !final {
			select {
			case b := <-w.events:
				switch b := b.(type) {
				case control.RunEvents:
					if b.Ended {
						last = b.Now
					}
				case control.Runs:
					runsEmpty = len(b.Runs) == 0
				case control.Run:
					final = final || b.ID == id && b.State == runs.StateSucceeded
				}
			default:
				return false
			}
		}
		return true
	})
	if last.State != runs.StateSucceeded {
		t.Errorf("the subscription ended with %+v, want the run succeeded", last)
	}
	if s := h.hub.Snapshot(); len(s.Runs) != 0 {
		t.Errorf("the tray shows %d runs once the run ended, want none", len(s.Runs))
	}

	err = w.client.FollowUp(ctx, id, "too late")
	if !errors.Is(err, runs.ErrNotRunning) {
		t.Errorf("a follow-up to the ended run = %v, want runs.ErrNotRunning across the channel", err)
	}
	if err := w.client.Subscribe(ctx, id); !errors.Is(err, runs.ErrNotRunning) {
		t.Errorf("subscribing to the ended run = %v, want runs.ErrNotRunning", err)
	}
	// The checkout is not a repository: push says why it cannot.
	if err := w.client.CheckPush(ctx, id); err == nil {
		t.Error("CheckPush of a folder that is not a repository passed")
	}
	if _, err := w.client.Push(ctx, "20250101-000000-000000"); !errors.Is(err, runs.ErrNotFound) {
		t.Errorf("pushing a run that does not exist = %v, want runs.ErrNotFound", err)
	}
}

// The token goes to the tray's keyring and never comes back: the window only learns
// whether one is set and for which host, and the keyring's errors keep their meaning
// across the channel. It is saved for the API URL the window names, else the one in force.
func TestTheKeyringIsTheTraysAndTheWindowOnlyLearnsWhetherATokenIsSet(t *testing.T) {
	h := newHarness(t, "segwi:\n  github:\n    apiURL: https://ghe.example.com/api/v3\n", options{})
	ctx := context.Background()
	h.hub.Show(ctx, control.Show{Window: control.ShowSettings})
	w := h.windows.window(t, 1)
	if st, err := w.client.TokenStatus(ctx); err != nil || st.Set {
		t.Fatalf("TokenStatus = %+v, %v; want none set", st, err)
	}
	if err := w.client.DeleteToken(ctx); !errors.Is(err, token.ErrNotFound) {
		t.Errorf("deleting no token = %v, want token.ErrNotFound", err)
	}
	if err := w.client.SetToken(ctx, "ghp_secret", ""); err != nil {
		t.Fatal(err)
	}
	if st, err := w.client.TokenStatus(ctx); err != nil || st != (token.State{Set: true, APIHost: "ghe.example.com"}) {
		t.Errorf("TokenStatus after Set = %+v, %v; want set for the API in force", st, err)
	}
	if h.token.tok != "ghp_secret" {
		t.Errorf("the keyring holds %q", h.token.tok)
	}
	if err := w.client.SetToken(ctx, "ghp_other", "https://api.github.com"); err != nil {
		t.Fatal(err)
	}
	if st, _ := w.client.TokenStatus(ctx); st.APIHost != "api.github.com" {
		t.Errorf("TokenStatus after Set for GitHub = %+v", st)
	}
}

// The tray checks the keyring's token with the GitHub API it was saved for (GET /user) and
// tells the window whose GitHub says it is, or what GitHub answered; the token itself
// reaches only that API, never the window.
func TestTheTrayChecksTheTokenWithTheAPIItWasSavedFor(t *testing.T) {
	const good = "ghp_goodgoodgoodgoodgoodgoodgoodgood0000"
	var mu sync.Mutex
	var seen []string
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		if r.URL.Path != "/api/v3/user" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+good {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"message":"Bad credentials"}`))
			return
		}
		w.Header().Set("X-OAuth-Scopes", "repo")
		w.Write([]byte(`{"login":"octocat"}`))
	}))
	t.Cleanup(api.Close)
	apiURL := api.URL + "/api/v3"
	h := newHarness(t, "segwi:\n  github:\n    apiURL: "+apiURL+"\n", options{github: api.Client()})
	ctx := context.Background()
	h.hub.Show(ctx, control.Show{Window: control.ShowSettings})
	w := h.windows.window(t, 1)

	if _, err := w.client.CheckToken(ctx); !errors.Is(err, token.ErrNotFound) {
		t.Errorf("CheckToken with no token = %v, want token.ErrNotFound", err)
	}
	if err := w.client.SetToken(ctx, good, ""); err != nil {
		t.Fatal(err)
	}
	c, err := w.client.CheckToken(ctx)
	if err != nil || c.Login != "octocat" || c.APIURL != apiURL || !slices.Equal(c.Scopes, []string{"repo"}) {
		t.Errorf("CheckToken = %+v, %v; want octocat with scope repo, checked at %s", c, err, apiURL)
	}
	if err := w.client.SetToken(ctx, "ghp_badbadbadbadbadbadbadbadbadbadbad0000", ""); err != nil {
		t.Fatal(err)
	}
	_, err = w.client.CheckToken(ctx)
	if err == nil || !strings.Contains(err.Error(), "GitHub answered 401 Bad credentials") || strings.Contains(err.Error(), "ghp_bad") {
		t.Errorf("CheckToken of a refused token = %v, want GitHub's refusal in words, without the token", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"GET /api/v3/user Bearer " + good, "GET /api/v3/user Bearer ghp_badbadbadbadbadbadbadbadbadbadbad0000"}
	if !slices.Equal(seen, want) {
		t.Errorf("the API was called %q, want %q", seen, want)
	}
}

// Saving from the settings window writes the tray's file and the window gets the report
// again; an edit from outside that widens guarded settings (a trusted command added, the
// token's host moved) waits for the person, who confirms it from a window.
func TestSettingsAreSavedByTheTrayAndAGuardedEditWaitsForThePerson(t *testing.T) {
	h := newHarness(t, "segwi:\n  approvals:\n    trusted: [git status]\n", options{watch: true})
	ctx := context.Background()
	h.hub.Show(ctx, control.Show{Window: control.ShowSettings})
	w := h.windows.window(t, 1)
	w.nextShow(t)
	rep := next[control.SettingsReport](t, w)
	if rep.File != h.path || rep.StateDir != h.core.StateDir() || !slices.Equal(rep.Settings.Approvals.Trusted, []string{"git status"}) {
		t.Fatalf("the first report is %+v", rep)
	}

	s := rep.Settings
	s.Claude.Model = "opus"
	s.Remote.Port = 8080 // guarded, but the person wrote it in the window: applies at once
	if err := w.client.SaveSettings(ctx, s); err != nil {
		t.Fatalf("SaveSettings: %v", err)
	}
	saved, err := settings.Load(h.path)
	if err != nil || saved.Settings.Claude.Model != "opus" {
		t.Fatalf("the file after Save: %+v, %v", saved, err)
	}
	if got := h.core.Settings().Remote.Port; got != 8080 {
		t.Errorf("port in force after Save %d, want 8080", got)
	}

	// An edit of the file from outside adds a trusted command and moves the token's host.
	if err := os.WriteFile(h.path, []byte("segwi:\n  claude:\n    model: opus\n  approvals:\n    trusted: [git status, rm]\n"+
		"  github:\n    apiURL: https://127.0.0.1:9/api/v3\n  remote:\n    port: 8080\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if sh := w.nextShow(t); sh.Window != control.ShowGuardedEdit {
		t.Fatalf("the window process was asked to show %s, want the guarded edit", sh.Window)
	}
	var edit *settings.GuardedEdit
	for edit == nil {
		edit = next[control.SettingsReport](t, w).Edit
	}
	var keys []string
	for _, c := range edit.Changes() {
		keys = append(keys, c.Key)
	}
	if want := []string{"segwi.approvals.trusted", "segwi.github.apiURL"}; !slices.Equal(keys, want) {
		t.Fatalf("the edit changes %q, want %q", keys, want)
	}
	if got := h.core.Settings().GitHub.APIURL; got != "https://api.github.com" {
		t.Errorf("apiURL in force before the person confirmed: %q, want the old one", got)
	}
	await.For(t, within, "the notification", func() bool {
		return slices.ContainsFunc(h.notes.all(), func(n string) bool {
			return strings.HasPrefix(n, "Settings changed outside segwi: "+h.path+" changed 2 guarded settings")
		})
	})
	if err := w.client.ConfirmEdit(ctx, *edit); err != nil {
		t.Fatalf("ConfirmEdit: %v", err)
	}
	for rep := next[control.SettingsReport](t, w); rep.Edit != nil; rep = next[control.SettingsReport](t, w) {
	}
	if got := h.core.Settings(); !slices.Equal(got.Approvals.Trusted, []string{"git status", "rm"}) || got.GitHub.APIURL != "https://127.0.0.1:9/api/v3" {
		t.Errorf("in force after confirming: trusted %q, apiURL %q; want the new values", got.Approvals.Trusted, got.GitHub.APIURL)
	}
}

// What the person must see at start comes up in a window of its own: bad settings, with
// the moment; retired keys, notified too; damaged run records.
func TestWarningsAtStartShowInWindows(t *testing.T) {
	state := t.TempDir()
	bad := filepath.Join(runs.RunsDir(state), "20250101-000000-aaaaaa")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(bad, "run.json"), []byte("{"), 0o600)
	h := newHarness(t, "segwi:\n  mcpPermissions: true\n  runs:\n    maxConcurrent: 0\n", options{state: state})
	w := h.windows.window(t, 1)
	shown := map[control.Window]control.Show{}
	for len(shown) < 3 {
		s := w.nextShow(t)
		shown[s.Window] = s
	}
	if s := shown[control.ShowSettingsProblems]; s.Moment != control.AtStartup {
		t.Errorf("settings problems shown %+v, want at start-up", s)
	}
	if s := shown[control.ShowRetired]; len(s.Retired) != 1 || s.Retired[0].Key != "segwi.mcpPermissions" {
		t.Errorf("retired keys shown %+v, want segwi.mcpPermissions", s.Retired)
	}
	if s := shown[control.ShowDamaged]; len(s.Damaged) != 1 || s.Damaged[0].File != filepath.Join(bad, "run.json") {
		t.Errorf("damaged records shown %+v, want %s", s.Damaged, filepath.Join(bad, "run.json"))
	}
	if n := h.windows.count(); n != 1 {
		t.Errorf("%d window processes started for three warnings, want 1", n)
	}
	await.For(t, within, "the retired keys' notification", func() bool {
		return slices.Contains(h.notes.all(), "Retired settings: segwi.mcpPermissions in "+h.path+" is retired and ignored: delete it.")
	})
}

// A window process that leaves as it is asked to show a window (its last window closed a
// while ago) is replaced, and the new one shows it.
func TestAShowReachesANewWindowProcessWhenTheLastOneLeaves(t *testing.T) {
	h := newHarness(t, "", options{})
	h.windows.onShow = func(w *fakeWindow, s control.Show) error {
		if w.n == 1 {
			w.client.Close() // leaving: the request is never answered
		}
		return nil
	}
	if err := h.hub.Show(context.Background(), control.Show{Window: control.ShowNewRun, Kind: runs.KindAsk}); err != nil {
		t.Fatalf("Show: %v", err)
	}
	if s := h.windows.window(t, 2).nextShow(t); s.Window != control.ShowNewRun {
		t.Errorf("the second window process was asked to show %s", s.Window)
	}
}

// A window process that has decided to leave answers a Show with control.ErrLeaving
// (its window would never show): the hub waits for it to end and asks the next one. The
// click was lost before: the person clicked a menu item and nothing opened.
func TestAShowAnsweredLeavingReachesTheNextWindowProcess(t *testing.T) {
	h := newHarness(t, "", options{})
	h.windows.onShow = func(w *fakeWindow, s control.Show) error {
		if w.n == 1 {
			return control.ErrLeaving
		}
		return nil
	}
	shown := make(chan error, 1)
	go func() { shown <- h.hub.Show(context.Background(), control.Show{Window: control.ShowHistory}) }()
	// The hub took the answer and waits for the first process to go, which it then does.
	await.For(t, within, "the hub to say the window process is leaving", func() bool {
		return strings.Contains(h.log.String(), "the window process is leaving; asking the next one")
	})
	h.windows.window(t, 1).client.Close()
	select {
	case err := <-shown:
		if err != nil {
			t.Fatalf("Show: %v", err)
		}
	case <-time.After(within):
		t.Fatal("Show did not return once the leaving window process had gone")
	}
	if s := h.windows.window(t, 2).nextShow(t); s.Window != control.ShowHistory {
		t.Errorf("the second window process was asked to show %s", s.Window)
	}
}

// A window process that ends before it connects (it could not open the display, or
// crashed on its way up) costs the person's click nothing: the hub starts one more.
func TestAShowOutlivesAWindowProcessThatDiedStarting(t *testing.T) {
	h := newHarness(t, "", options{})
	h.windows.dieEarly = 1 // before the hub starts any
	if err := h.hub.Show(context.Background(), control.Show{Window: control.ShowSettings}); err != nil {
		t.Fatalf("Show: %v", err)
	}
	if s := h.windows.window(t, 2).nextShow(t); s.Window != control.ShowSettings {
		t.Errorf("the second window process was asked to show %s", s.Window)
	}
	if log := h.log.String(); !strings.Contains(log, "the window process ended before it connected") {
		t.Errorf("the hub's log does not name the failed start:\n%s", log)
	}

	// Two in a row: the click fails, and says why.
	h.windows.window(t, 2).client.Close() // its last window closed: it leaves
	await.For(t, within, "the second window process to be gone", func() bool { return h.hub.WindowPid() == 0 })
	h.windows.mu.Lock()
	h.windows.dieEarly = 2
	h.windows.mu.Unlock()
	err := h.hub.Show(context.Background(), control.Show{Window: control.ShowSettings})
	if err == nil || !strings.Contains(err.Error(), "ended before it connected") {
		t.Errorf("Show with two failed starts: %v, want it to say the window process ended before it connected", err)
	}
}

func TestQuitStopsTheRunsAndEndsTheTray(t *testing.T) {
	claude := claudeScript(t, "trap 'exit 0' TERM\nread line\nwhile :; do sleep 1; done\n")
	h := newHarness(t, "segwi:\n  claude:\n    path: "+claude+"\n  runs:\n    stopGrace: 1s\n", options{})
	ctx := context.Background()
	h.hub.Show(ctx, control.Show{Window: control.ShowQuit})
	w := h.windows.window(t, 1)
	r, err := h.core.Start(context.Background(), runs.Spec{Kind: runs.KindBuild, Checkout: claudetest.Checkout(t), Prompt: "wait"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.client.Quit(ctx); err != nil {
		t.Fatalf("Quit: %v", err)
	}
	if !r.State().Final() {
		t.Errorf("the run is %s after Quit replied, want it stopped", r.State())
	}
	select {
	case <-h.quit:
	case <-time.After(within):
		t.Error("the tray was not ended")
	}
}

// A push ends what the run left running before anything else: such a process could
// rewrite the checkout's git configuration while the push reads it.
func TestPushEndsWhatTheRunLeftRunningFirst(t *testing.T) {
	state, checkout := t.TempDir(), t.TempDir() // not a repository: the push is refused after
	id := "20260101-000000-a1b2c3"
	records.WriteRun(t, state, runs.Info{ID: id, Kind: runs.KindBuild, Checkout: checkout, State: runs.StateSucceeded, Created: time.Now()})
	pid := proctest.Detach(t, append(os.Environ(), "SEGWI_RUN_ID="+id), 7511)
	h := newHarness(t, "", options{state: state})
	ctx := context.Background()
	h.hub.Show(ctx, control.Show{Window: control.ShowRun, Run: id})
	w := h.windows.window(t, 1)

	if _, err := w.client.Push(ctx, id); err == nil {
		t.Errorf("Push of a folder that is not a repository succeeded")
	}
	if proctest.Alive(pid, "sleep 7511") {
		t.Errorf("process %d, which run %s left running, is alive after Push", pid, id)
	}
	var killed bool
	runs.ReadEvents(state, id, func(e runs.Event) error {
		killed = killed || e.Type == runs.EventLeftover && e.Process.PID == pid && e.Process.Killed
		return nil
	})
	if !killed {
		t.Errorf("the run's events do not say process %d was killed", pid)
	}
}

// The guard hook's setup is the tray's to write: the window is told what it would write,
// only what the person read is written (a plan that changed meanwhile writes nothing), and
// segwi.canary.guardDeny names its deny file at once, in force and in the settings file.
func TestTheTraySetsUpTheGuardHookThePersonRead(t *testing.T) {
	home := t.TempDir()
	h := newHarness(t, "segwi:\n  runs:\n    maxDuration: 2h\n", options{home: home})
	ctx := context.Background()
	h.hub.Show(ctx, control.Show{Window: control.ShowSettings})
	w := h.windows.window(t, 1)

	plan, err := w.client.PlanGuard(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range plan.Files {
		got = append(got, f.Action+" "+strings.TrimPrefix(f.Path, home+"/"))
	}
	want := []string{"create .claude/guard.deny", "create .claude/hooks/guard.sh", "create .claude/settings.json"}
	if !slices.Equal(got, want) || plan.Deny != filepath.Join(home, ".claude/guard.deny") {
		t.Fatalf("PlanGuard = %q, deny %s; want %q", got, plan.Deny, want)
	}

	if err := w.client.SetUpGuard(ctx, "a plan of another day"); err == nil || !strings.Contains(err.Error(), "look at what will be written again") {
		t.Errorf("SetUpGuard of a plan not shown = %v, want a refusal saying to look again", err)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused setup wrote in the home folder (%v)", err)
	}

	if err := w.client.SetUpGuard(ctx, plan.Digest); err != nil {
		t.Fatal(err)
	}
	if got := h.core.Settings().Canary.GuardDeny; got != plan.Deny {
		t.Errorf("guardDeny in force is %q, want %s", got, plan.Deny)
	}
	data, err := os.ReadFile(h.path)
	if err != nil || !strings.Contains(string(data), "guardDeny: "+plan.Deny) || !strings.Contains(string(data), "maxDuration: 2h") {
		t.Errorf("the settings file holds %q (%v), want guardDeny set and the rest kept", data, err)
	}
	if cmd, err := canary.GuardCommand(plan.Deny); err != nil || cmd != "echo segwi-canary-guard" {
		t.Errorf("the deny file's first command is %q (%v)", cmd, err)
	}
}
