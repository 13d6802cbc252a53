package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/settings/token"
)

// settingsHome gives the test its own HOME and XDG_CONFIG_HOME, with a checkout at
// ~/src/web and a guard deny file at ~/.claude/guard.deny, and returns HOME.
func settingsHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	if err := os.MkdirAll(filepath.Join(home, "src", "web"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "guard.deny"), []byte("rm -rf /\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// sampleSettings are settings with a value other than the default in every field.
func sampleSettings(home string) settings.Settings {
	s := settings.Default()
	s.Claude = settings.Claude{Path: "/usr/local/bin/claude", Model: "opus"}
	s.Repositories = []settings.Repository{{Name: "web", Path: filepath.Join(home, "src", "web"), Remote: "upstream"}}
	s.Runs = settings.Runs{MaxConcurrent: 2, MaxDuration: 90 * time.Minute, IdleTimeout: 20 * time.Minute,
		StopGrace: 15 * time.Second, PassForgeTokens: true}
	s.Approvals = settings.Approvals{Timeout: 5 * time.Minute, Trusted: []string{"go test", "make check"}}
	s.Canary.GuardDeny = filepath.Join(home, ".claude", "guard.deny")
	s.Remote = settings.Remote{Enabled: true, Port: 8443, Owners: []string{"alice@example.com", "alice@github"},
		Socket: filepath.Join(home, ".local", "share", "tailscale", "tailscaled.sock")}
	return s
}

// uiQueue holds what the keyring goroutine hands to the UI, for the test goroutine to run:
// the test driver would otherwise run it on the keyring goroutine, racing with the test.
type uiQueue struct {
	mu sync.Mutex
	fs []func()
}

func (q *uiQueue) do(f func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.fs = append(q.fs, f)
}

// drain runs what was handed to the UI, and reports whether there was anything.
func (q *uiQueue) drain() bool {
	q.mu.Lock()
	fs := q.fs
	q.fs = nil
	q.mu.Unlock()
	for _, f := range fs {
		f()
	}
	return len(fs) > 0
}

// settingsHarness is an open settings window under test.
type settingsHarness struct {
	*settingsWindow
	ui *uiQueue
}

// settle waits for the keyring calls and the Save under way and shows their answers, and
// for what those answers start in turn (a token set is checked with GitHub).
func (h *settingsHarness) settle() {
	for {
		h.token.wait()
		h.saves.Wait()
		if !h.ui.drain() {
			return
		}
	}
}

// openTestSettings opens the settings window on a fresh test app and waits for its first
// keyring answer.
func openTestSettings(t *testing.T, cfg SettingsWindowConfig) (*settingsTestApp, *settingsHarness) {
	t.Helper()
	return openTestSettingsOn(t, newSettingsTestApp(t), cfg)
}

func openTestSettingsOn(t *testing.T, a *settingsTestApp, cfg SettingsWindowConfig) (*settingsTestApp, *settingsHarness) {
	t.Helper()
	if cfg.Token == nil {
		cfg.Token = &fakeTokenStore{}
	}
	if cfg.Save == nil {
		cfg.Save = settings.Save // as the tray's core does, without the trusted commands
	}
	q := &uiQueue{}
	cfg.uiDo = q.do
	w := openSettings(a, cfg)
	t.Cleanup(func() {
		settingsWindows.Lock()
		open := settingsWindows.m[a] == w
		settingsWindows.Unlock()
		if open { // the test driver panics on closing a window twice
			w.win.Close()
		}
	})
	h := &settingsHarness{settingsWindow: w, ui: q}
	h.settle()
	return a, h
}

func TestSettingsWindowShowsCurrentValues(t *testing.T) {
	home := settingsHome(t)
	_, w := openTestSettings(t, SettingsWindowConfig{
		Path:    filepath.Join(home, ".config", "segwi", "config.yaml"),
		Current: sampleSettings(home),
		Page:    control.PageStatus{On: true, URL: "http://machine.example.ts.net:8443/"},
	})
	f := w.form
	got := map[string]string{
		"claude path": f.claudePath.Text, "model": f.claudeModel.Text,
		"repo name": f.repos[0].name.Text, "repo path": f.repos[0].path.Text, "repo remote": f.repos[0].remote.Text,
		"maxConcurrent": f.maxConcurrent.Text, "maxDuration": f.maxDuration.Text, "idleTimeout": f.idleTimeout.Text,
		"stopGrace": f.grace.Text, "passForgeTokens": fmt.Sprint(f.passForgeTokens.Checked),
		"approvals timeout": f.approvalsTimeout.Text, "trusted": f.trusted.Text,
		"guardDeny": f.guardDeny.Text, "apiURL": f.apiURL.Text, "token": w.token.status.Text,
		"remote enabled": fmt.Sprint(f.remoteEnabled.Checked), "remote port": f.remotePort.Text,
		"remote owners": f.remoteOwners.Text, "remote socket": f.remoteSocket.Text, "page": w.pageText.Text,
	}
	want := map[string]string{
		"claude path": "/usr/local/bin/claude", "model": "opus",
		"repo name": "web", "repo path": "~/src/web", "repo remote": "upstream",
		"maxConcurrent": "2", "maxDuration": "1h30m", "idleTimeout": "20m", "stopGrace": "15s",
		"passForgeTokens": "true", "approvals timeout": "5m", "trusted": "go test\nmake check",
		"guardDeny": "~/.claude/guard.deny", "apiURL": "https://api.github.com", "token": tokenNotSet,
		"remote enabled": "true", "remote port": "8443",
		"remote owners": "alice@example.com, alice@github", "remote socket": "~/.local/share/tailscale/tailscaled.sock",
		"page": "Served at http://machine.example.ts.net:8443/: open it on your phone or another device of yours on the tailnet.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if w.save.Disabled() {
		t.Errorf("Save is off for valid settings; the note says %q", w.note.Text)
	}
	w.win.Resize(fyne.NewSize(720, 1700))
	assertMarkup(t, "settings_window.xml", w.win.Canvas())
}

func TestSettingsWindowValidatesAsYouType(t *testing.T) {
	home := settingsHome(t)
	notDir := filepath.Join(home, "notes.txt")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tooMany := make([]string, settings.MaxTrusted+1)
	for i := range tooMany {
		tooMany[i] = fmt.Sprintf("tool%d", i)
	}
	tests := []struct {
		name    string
		edit    func(f *settingsForm, c fyne.Canvas)
		errOf   func(f *settingsForm) *fieldError
		want    string
		restore func(f *settingsForm)
	}{
		{
			name: "a duration without a unit is named with its key",
			edit: func(f *settingsForm, c fyne.Canvas) {
				f.maxDuration.SetText("")
				c.Focus(f.maxDuration)
				test.Type(f.maxDuration, "2x")
			},
			errOf:   func(f *settingsForm) *fieldError { return f.errs[keyMaxDuration] },
			want:    `Longest run: "2x" is not a duration like 90s, 30m or 2h  segwi.runs.maxDuration`,
			restore: func(f *settingsForm) { f.maxDuration.SetText("2h") },
		},
		{
			name: "maxConcurrent 0 is out of range",
			edit: func(f *settingsForm, c fyne.Canvas) {
				f.maxConcurrent.SetText("")
				c.Focus(f.maxConcurrent)
				test.Type(f.maxConcurrent, "0")
			},
			errOf:   func(f *settingsForm) *fieldError { return f.errs[keyMaxConcurrent] },
			want:    "Runs at once: must be between 1 and 64, got 0  segwi.runs.maxConcurrent",
			restore: func(f *settingsForm) { f.maxConcurrent.SetText("4") },
		},
		{
			name:    "a repository path that is a file is not a checkout",
			edit:    func(f *settingsForm, _ fyne.Canvas) { f.repos[0].path.SetText(notDir) },
			errOf:   func(f *settingsForm) *fieldError { return f.repos[0].pathErr },
			want:    "Path: " + notDir + " is not a directory: write the checkout's directory",
			restore: func(f *settingsForm) { f.repos[0].path.SetText("~/src/web") },
		},
		{
			name:    "more trusted entries than allowed",
			edit:    func(f *settingsForm, _ fyne.Canvas) { f.trusted.SetText(strings.Join(tooMany, "\n")) },
			errOf:   func(f *settingsForm) *fieldError { return f.errs[keyTrusted] },
			want:    "Trusted commands: has 65 entries, at most 64 are allowed  segwi.approvals.trusted",
			restore: func(f *settingsForm) { f.trusted.SetText("go test") },
		},
		{
			name:    "a trusted entry that is not a plain command prefix",
			edit:    func(f *settingsForm, _ fyne.Canvas) { f.trusted.SetText("go test\ngo test && rm -rf /") },
			errOf:   func(f *settingsForm) *fieldError { return f.errs[keyTrusted] },
			want:    `Trusted commands: "go test && rm -rf /" is not a plain command prefix`,
			restore: func(f *settingsForm) { f.trusted.SetText("go test") },
		},
		{
			name: "a port out of range is named with its label and key",
			edit: func(f *settingsForm, c fyne.Canvas) {
				f.remotePort.SetText("")
				c.Focus(f.remotePort)
				test.Type(f.remotePort, "70000")
			},
			errOf:   func(f *settingsForm) *fieldError { return f.errs[keyRemotePort] },
			want:    "Port: must be between 1 and 65535, got 70000  segwi.remote.port",
			restore: func(f *settingsForm) { f.remotePort.SetText("7717") },
		},
		{
			name:    "a port that is not a number",
			edit:    func(f *settingsForm, _ fyne.Canvas) { f.remotePort.SetText("http") },
			errOf:   func(f *settingsForm) *fieldError { return f.errs[keyRemotePort] },
			want:    `Port: must be a whole number between 1 and 65535, got "http"  segwi.remote.port`,
			restore: func(f *settingsForm) { f.remotePort.SetText("7717") },
		},
		{
			name:    "an owner that is not a login name",
			edit:    func(f *settingsForm, _ fyne.Canvas) { f.remoteOwners.SetText("alice@example.com, bob") },
			errOf:   func(f *settingsForm) *fieldError { return f.errs[keyRemoteOwners] },
			want:    `Owners: "bob" is not a tailnet login name`,
			restore: func(f *settingsForm) { f.remoteOwners.SetText("alice@example.com") },
		},
		{
			name:    "a relative tailscaled socket",
			edit:    func(f *settingsForm, _ fyne.Canvas) { f.remoteSocket.SetText("tailscaled.sock") },
			errOf:   func(f *settingsForm) *fieldError { return f.errs[keyRemoteSocket] },
			want:    `tailscaled socket: must be an absolute path or start with ~/, got "tailscaled.sock"`,
			restore: func(f *settingsForm) { f.remoteSocket.SetText("") },
		},
		{
			name:    "an empty Claude Code binary",
			edit:    func(f *settingsForm, _ fyne.Canvas) { f.claudePath.SetText(" ") },
			errOf:   func(f *settingsForm) *fieldError { return f.errs[keyClaudePath] },
			want:    "Binary: must not be empty: name the Claude Code binary",
			restore: func(f *settingsForm) { f.claudePath.SetText("claude") },
		},
	}
	_, w := openTestSettings(t, SettingsWindowConfig{
		Path:    filepath.Join(home, ".config", "segwi", "config.yaml"),
		Current: sampleSettings(home),
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.edit(w.form, w.win.Canvas())
			l := tt.errOf(w.form)
			if !strings.HasPrefix(l.Text(), tt.want) {
				t.Errorf("error under the field: got %q, want it to start with %q", l.Text(), tt.want)
			}
			if !w.save.Disabled() {
				t.Error("Save is on while a field is invalid")
			}
			if !strings.Contains(w.note.Text, "Fix the 1 problem shown in red") {
				t.Errorf("got note %q, want it to say what keeps Save off", w.note.Text)
			}
			tt.restore(w.form)
			if l.Text() != "" {
				t.Errorf("error still shown after the fix: %q", l.Text())
			}
			if w.save.Disabled() {
				t.Errorf("Save is still off after the fix; the note says %q", w.note.Text)
			}
		})
	}
}

func TestSettingsRepositoriesAddAndRemove(t *testing.T) {
	home := settingsHome(t)
	_, w := openTestSettings(t, SettingsWindowConfig{
		Path:    filepath.Join(home, ".config", "segwi", "config.yaml"),
		Current: sampleSettings(home),
	})
	test.Tap(settingsButton(t, w.win, "Add repository"))
	if len(w.form.repos) != 2 {
		t.Fatalf("got %d repositories after Add, want 2", len(w.form.repos))
	}
	added := w.form.repos[1]
	// A new entry is empty, which is not yet a mistake: nothing red until it is typed in,
	// and Save waits for it, saying so.
	for _, fe := range []*fieldError{added.nameErr, added.pathErr, added.remoteErr, added.rowErr} {
		if fe.Text() != "" {
			t.Errorf("the new, untouched entry shows a problem: %q", fe.Text())
		}
	}
	if !w.save.Disabled() || w.note.Importance == widget.DangerImportance || !strings.Contains(w.note.Text, "Fill in the new repository") {
		t.Errorf("an empty new entry: Save disabled %v, note %q (importance %v), want Save off and a hint in plain words",
			w.save.Disabled(), w.note.Text, w.note.Importance)
	}
	if w.win.Canvas().Focused() != added.name {
		t.Errorf("the focus is on %v after Add repository, want the new name field", w.win.Canvas().Focused())
	}
	test.Type(added.name, "x")
	added.name.SetText("")
	if !strings.HasPrefix(added.nameErr.Text(), "Name: must not be empty") ||
		!strings.HasSuffix(added.nameErr.Text(), "  segwi.repositories[1].name") {
		t.Errorf("a name typed and erased: got name error %q, want it to say it must not be empty", added.nameErr.Text())
	}
	if added.pathErr.Text() != "" {
		t.Errorf("the path, not typed in yet, shows %q", added.pathErr.Text())
	}
	added.name.SetText("WEB")
	added.path.SetText("~/src/web")
	if want := `Name: "WEB" is already the name of segwi.repositories[0]`; !strings.HasPrefix(added.nameErr.Text(), want) {
		t.Errorf("got %q, want it to start with %q", added.nameErr.Text(), want)
	}
	added.name.SetText("api")
	if w.save.Disabled() {
		t.Fatalf("Save is off for two good repositories: %q", w.note.Text)
	}
	test.Tap(settingsFindButton(w.form.repos[0].box, "Remove"))
	if diff := cmp.Diff([]settings.Repository{{Name: "api", Path: filepath.Join(home, "src", "web"), Remote: "origin"}},
		w.form.checked.Repositories); diff != "" {
		t.Errorf("repositories after removing web (-want +got):\n%s", diff)
	}
}

func TestSettingsSaveKeepsKeysItDoesNotManage(t *testing.T) {
	home := settingsHome(t)
	path := filepath.Join(home, ".config", "segwi", "config.yaml")
	file := `# my segwi settings
segwi:
  futureKey: keep me   # a newer segwi's
  permissions:
    allow: [Bash]
  runs:
    maxConcurrent: 3
  repositories:
    - name: web
      path: ~/src/web
      allowedDomains: [example.com]
`
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	before, err := settings.Load(path)
	if err != nil || before.Err() != nil {
		t.Fatalf("loading the sample: %v %v", err, before.Err())
	}
	var saved []settings.Settings
	_, w := openTestSettings(t, SettingsWindowConfig{
		Path: path, Current: before.Settings,
		OnSaved: func(s settings.Settings) { saved = append(saved, s) },
	})
	w.form.maxConcurrent.SetText("")
	w.win.Canvas().Focus(w.form.maxConcurrent)
	test.Type(w.form.maxConcurrent, "6")
	w.form.approvalsTimeout.SetText("90s")
	test.Tap(settingsButton(t, w.win, "Save"))
	w.settle() // the tray answers off the UI goroutine

	if len(saved) != 1 || saved[0].Runs.MaxConcurrent != 6 {
		t.Fatalf("OnSaved got %+v, want one call with maxConcurrent 6", saved)
	}
	if want := "Saved to " + path + "."; w.note.Text != want {
		t.Errorf("got note %q, want %q", w.note.Text, want)
	}
	after, err := settings.Load(path)
	if err != nil || after.Err() != nil {
		t.Fatalf("loading the saved file: %v %v", err, after.Err())
	}
	if got := after.Settings; got.Runs.MaxConcurrent != 6 || got.Approvals.Timeout != 90*time.Second {
		t.Errorf("read back maxConcurrent %d and timeout %s, want 6 and 1m30s", got.Runs.MaxConcurrent, got.Approvals.Timeout)
	}
	if diff := cmp.Diff([]string{"segwi.futureKey"}, after.Unknown); diff != "" {
		t.Errorf("unknown keys after Save (-want +got):\n%s", diff)
	}
	var retired []string
	for _, r := range after.Retired {
		retired = append(retired, r.Key)
	}
	if diff := cmp.Diff([]string{"segwi.permissions", "segwi.repositories[0].allowedDomains"}, retired); diff != "" {
		t.Errorf("retired keys after Save (-want +got):\n%s", diff)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"# my segwi settings", "# a newer segwi's", "path: ~/src/web"} {
		if !strings.Contains(string(data), s) {
			t.Errorf("the saved file lost %q:\n%s", s, data)
		}
	}
}

// The Remote approvals fields reach the tray's SaveSettings as the person typed them:
// owners split at commas and spaces, the socket's ~ expanded; emptied, they are the
// defaults (the owner of this machine's node, tailscaled's own socket).
func TestSettingsSaveSendsTheRemoteApprovalsFields(t *testing.T) {
	home := settingsHome(t)
	var saved []settings.Remote
	_, w := openTestSettings(t, SettingsWindowConfig{
		Path: filepath.Join(home, "config.yaml"), Current: settings.Default(),
		Save: func(_ string, s settings.Settings) error { saved = append(saved, s.Remote); return nil },
	})
	f := w.form
	if f.remoteEnabled.Checked || f.remotePort.Text != "7717" || f.remoteOwners.Text != "" || f.remoteSocket.Text != "" {
		t.Fatalf("the defaults show as enabled %v, port %q, owners %q, socket %q; want off, 7717 and empty",
			f.remoteEnabled.Checked, f.remotePort.Text, f.remoteOwners.Text, f.remoteSocket.Text)
	}
	for key, want := range map[string]string{keyRemoteOwners: "empty: the owner of this machine's node", keyRemoteSocket: "empty: tailscaled's default"} {
		if hint := f.errs[key].text.String(); !strings.Contains(hint, want) {
			t.Errorf("under the field of %s: got %q, want it to say %q", key, hint, want)
		}
	}

	test.Tap(f.remoteEnabled)
	f.remotePort.SetText("")
	w.win.Canvas().Focus(f.remotePort)
	test.Type(f.remotePort, "8443")
	w.win.Canvas().Focus(f.remoteOwners)
	test.Type(f.remoteOwners, "alice@example.com,  alice@github bob@example.com")
	w.win.Canvas().Focus(f.remoteSocket)
	test.Type(f.remoteSocket, "~/.local/share/tailscale/tailscaled.sock")
	test.Tap(settingsButton(t, w.win, "Save"))
	w.settle() // the tray answers off the UI goroutine

	f.remoteEnabled.SetChecked(false)
	f.remoteOwners.SetText(" ")
	f.remoteSocket.SetText("")
	test.Tap(settingsButton(t, w.win, "Save"))
	w.settle() // the tray answers off the UI goroutine

	want := []settings.Remote{
		{Enabled: true, Port: 8443, Owners: []string{"alice@example.com", "alice@github", "bob@example.com"},
			Socket: filepath.Join(home, ".local", "share", "tailscale", "tailscaled.sock")},
		{Enabled: false, Port: 8443},
	}
	if diff := cmp.Diff(want, saved); diff != "" {
		t.Errorf("segwi.remote sent to SaveSettings (-want +got):\n%s", diff)
	}
}

func TestSettingsSaveSaysItWritesYAMLOnly(t *testing.T) {
	home := settingsHome(t)
	path := filepath.Join(home, "segwi.toml")
	if err := os.WriteFile(path, []byte("[segwi.runs]\nmaxConcurrent = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, w := openTestSettings(t, SettingsWindowConfig{Path: path, Current: settings.Default()})
	if !w.save.Disabled() {
		t.Error("Save is on for a TOML file")
	}
	if want := "Save writes YAML settings files only, and " + path + " is not one"; !strings.HasPrefix(w.note.Text, want) {
		t.Errorf("got note %q, want it to start with %q", w.note.Text, want)
	}
	test.Tap(w.save)
	if data, _ := os.ReadFile(path); string(data) != "[segwi.runs]\nmaxConcurrent = 3\n" {
		t.Errorf("the TOML file changed:\n%s", data)
	}
}

// The tray writes the settings: while it does, the window stays live (the call is off the
// UI goroutine), Save is off and says so, and a second press does not save twice.
func TestSettingsSaveWaitsForTheTrayWithoutFreezing(t *testing.T) {
	home := settingsHome(t)
	release := make(chan struct{})
	var calls atomic.Int32
	_, w := openTestSettings(t, SettingsWindowConfig{
		Path: filepath.Join(home, "config.yaml"), Current: settings.Default(),
		Save: func(string, settings.Settings) error { calls.Add(1); <-release; return nil },
	})
	test.Tap(w.save) // returns at once: the UI goroutine is not held by the tray
	if !w.save.Disabled() || w.note.Text != "Saving…" {
		t.Errorf("while the tray saves: Save disabled %v, note %q; want it off and \"Saving…\"", w.save.Disabled(), w.note.Text)
	}
	test.Tap(w.save)
	close(release)
	w.settle()
	if n := calls.Load(); n != 1 {
		t.Errorf("the tray was asked to save %d times, want once", n)
	}
	if w.save.Disabled() || !strings.HasPrefix(w.note.Text, "Saved to ") {
		t.Errorf("after the tray's answer: Save disabled %v, note %q; want it on and \"Saved to …\"", w.save.Disabled(), w.note.Text)
	}
}

func TestSettingsSaveShowsWhyItFailed(t *testing.T) {
	home := settingsHome(t)
	path := filepath.Join(home, "config.yaml")
	if err := os.WriteFile(path, []byte("segwi: [not, a, mapping\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, w := openTestSettings(t, SettingsWindowConfig{Path: path, Current: settings.Default(),
		LoadErr: errors.New(path + ": yaml: line 1: did not find expected ',' or ']'")})
	test.Tap(w.save)
	w.settle()
	if !strings.HasPrefix(w.note.Text, "Not saved: saving settings: "+path) || !strings.Contains(w.note.Text, "fix the YAML syntax first") {
		t.Errorf("got note %q, want why Save failed", w.note.Text)
	}
	if texts := strings.Join(settingsLabels(w.win.Content()), "\n"); !strings.Contains(texts, "The settings file has problems") {
		t.Errorf("the window does not say the file has problems:\n%s", texts)
	}
}

func TestSettingsTokenGoesOnlyToTheKeyring(t *testing.T) {
	home := settingsHome(t)
	store := &fakeTokenStore{}
	_, w := openTestSettings(t, SettingsWindowConfig{
		Path: filepath.Join(home, "config.yaml"), Current: settings.Default(), Token: store,
	})
	const secret = "ghp_0123456789abcdefSECRET"
	if !w.token.set.Disabled() {
		t.Error("Set token is on with nothing typed")
	}
	w.win.Canvas().Focus(w.token.entry)
	test.Type(w.token.entry, secret)
	test.Tap(w.token.set)
	w.settle()

	tok, sets := store.stored()
	if tok != secret || len(sets) != 1 {
		t.Errorf("keyring got %d sets, holding %q; want one set of the typed token", len(sets), tok)
	}
	if want := "GitHub token: set for api.github.com (kept in the keyring)."; w.token.status.Text != want {
		t.Errorf("got status %q, want %q", w.token.status.Text, want)
	}
	if want := "GitHub at https://api.github.com takes the token: it is octocat's (a fine-grained token: GitHub lists no scopes for it)."; w.token.check.Text != want || w.token.check.Hidden {
		t.Errorf("got the check %q (hidden %v), want %q", w.token.check.Text, w.token.check.Hidden, want)
	}
	if w.token.entry.Text != "" {
		t.Error("the token stays in the field after it was stored")
	}
	if markup := test.RenderToMarkup(w.win.Canvas()); strings.Contains(markup, secret) || strings.Contains(markup, "SECRET") {
		t.Error("the window shows the token")
	}
	data, err := os.ReadFile(filepath.Join(home, "config.yaml"))
	if err == nil && strings.Contains(string(data), secret) {
		t.Error("the token reached the settings file")
	}

	if w.token.del.Disabled() {
		t.Fatal("Delete token is off with a token set")
	}
	test.Tap(w.token.del)
	w.settle()
	if tok, _ := store.stored(); tok != secret {
		t.Fatal("Delete token deleted without asking")
	}
	test.Tap(dialogButton(t, w.win, "Keep it"))
	w.settle()
	if tok, _ := store.stored(); tok != secret {
		t.Fatal("Keep it deleted the token")
	}
	test.Tap(w.token.del)
	test.Tap(dialogButton(t, w.win, "Delete token"))
	w.settle()
	if tok, _ := store.stored(); tok != "" || w.token.status.Text != tokenNotSet {
		t.Errorf("after Delete the keyring holds %q and the status reads %q", tok, w.token.status.Text)
	}
	if !w.token.check.Hidden {
		t.Errorf("after Delete the window still says %q", w.token.check.Text)
	}
	if !w.token.del.Disabled() {
		t.Error("Delete token is on with no token set")
	}
}

// A saved token is checked with the GitHub API it was saved for, by the tray, and the
// window says what GitHub said: whose token it is and its scopes, or GitHub's refusal, or
// why it could not be asked.
func TestSettingsTokenSaysWhatGitHubSaysOfIt(t *testing.T) {
	home := settingsHome(t)
	for _, c := range []struct {
		name  string
		store *fakeTokenStore
		want  string
		imp   widget.Importance
	}{
		{"a classic token", &fakeTokenStore{token: "ghp_x", host: "ghe.example.com", checkScopes: []string{"repo", "workflow"}},
			"GitHub at https://ghe.example.com/api/v3 takes the token: it is octocat's, with scopes repo, workflow.", widget.SuccessImportance},
		{"a classic token without scopes", &fakeTokenStore{token: "ghp_x", host: "api.github.com", checkScopes: []string{}},
			"GitHub at https://api.github.com takes the token: it is octocat's, with no scopes: it cannot push.", widget.SuccessImportance},
		{"a refused token", &fakeTokenStore{token: "ghp_x", host: "api.github.com",
			checkErr: &control.ReplyError{Text: "check the GitHub token at https://api.github.com: GitHub answered 401 Bad credentials; the token was refused, set a new one with `segwi token set`", Code: control.CodeGitHubRefused}},
			"GitHub did not take the token: check the GitHub token at https://api.github.com: GitHub answered 401 Bad credentials; the token was refused, set a new one with `segwi token set`.", widget.DangerImportance},
		{"no answer", &fakeTokenStore{token: "ghp_x", host: "api.github.com", checkErr: errors.New("check the GitHub token at https://api.github.com: calling GitHub: dial tcp: lookup api.github.com: no such host")},
			"The token could not be checked: check the GitHub token at https://api.github.com: calling GitHub: dial tcp: lookup api.github.com: no such host.", widget.WarningImportance},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, w := openTestSettings(t, SettingsWindowConfig{Path: filepath.Join(home, "config.yaml"), Current: settings.Default(), Token: c.store})
			if w.token.check.Text != c.want || w.token.check.Importance != c.imp || w.token.check.Hidden {
				t.Errorf("the window says %q (importance %v, hidden %v), want %q (%v)", w.token.check.Text, w.token.check.Importance, w.token.check.Hidden, c.want, c.imp)
			}
		})
	}
	store := &fakeTokenStore{}
	_, w := openTestSettings(t, SettingsWindowConfig{Path: filepath.Join(home, "config.yaml"), Current: settings.Default(), Token: store})
	if !w.token.check.Hidden || store.checks != 0 {
		t.Errorf("with no token: the check shows %q (hidden %v) after %d checks, want none", w.token.check.Text, w.token.check.Hidden, store.checks)
	}
}

// The token is saved for the API URL in the window, and goes nowhere else: the status says
// so when the URL names another host.
func TestSettingsTokenIsSavedForTheAPIURLShown(t *testing.T) {
	home := settingsHome(t)
	store := &fakeTokenStore{}
	_, w := openTestSettings(t, SettingsWindowConfig{
		Path: filepath.Join(home, "config.yaml"), Current: settings.Default(), Token: store,
	})
	test.Type(w.token.entry, "ghp_first")
	test.Tap(w.token.set)
	w.settle()
	w.form.apiURL.SetText("https://ghe.example.com/api/v3")
	want := "GitHub token: set for api.github.com (kept in the keyring). segwi does not send it to ghe.example.com, " +
		"the API URL's host: set it again to push there."
	if w.token.status.Text != want {
		t.Errorf("after the API URL changed: status %q, want %q", w.token.status.Text, want)
	}
	test.Type(w.token.entry, "ghp_second")
	test.Tap(w.token.set)
	w.settle()
	if store.host != "ghe.example.com" || w.token.status.Text != "GitHub token: set for ghe.example.com (kept in the keyring)." {
		t.Errorf("after Set token: saved for %q, status %q; want ghe.example.com", store.host, w.token.status.Text)
	}
}

// dialogButton returns the button labelled text of the dialog open over w.
func dialogButton(t *testing.T, w fyne.Window, text string) *widget.Button {
	t.Helper()
	top := w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatalf("no dialog open over %q", w.Title())
	}
	b := settingsFindButton(top, text)
	if b == nil {
		t.Fatalf("the dialog over %q has no %q button", w.Title(), text)
	}
	return b
}

func TestSettingsCloseAsksBeforeLosingEdits(t *testing.T) {
	home := settingsHome(t)
	path := filepath.Join(home, ".config", "segwi", "config.yaml")
	a, w := openTestSettings(t, SettingsWindowConfig{Path: path, Current: sampleSettings(home)})
	isOpen := func() bool {
		for _, win := range a.Driver().AllWindows() {
			if win == w.win {
				return true
			}
		}
		return false
	}
	w.form.maxConcurrent.SetText("3")
	test.Tap(settingsButton(t, w.win, "Close"))
	test.Tap(dialogButton(t, w.win, "Keep editing"))
	if !isOpen() || w.form.maxConcurrent.Text != "3" {
		t.Fatal("Keep editing closed the window or lost the edit")
	}
	test.Tap(settingsButton(t, w.win, "Save"))
	w.settle() // the tray answers off the UI goroutine
	test.Tap(settingsButton(t, w.win, "Close"))
	if isOpen() {
		t.Fatal("Close after Save asked instead of closing")
	}

	a, w = openTestSettingsOn(t, a, SettingsWindowConfig{Path: path, Current: sampleSettings(home)})
	w.form.apiURL.SetText("https://ghe.example.com/api/v3")
	test.Tap(settingsButton(t, w.win, "Close"))
	test.Tap(dialogButton(t, w.win, "Discard changes"))
	if isOpen() {
		t.Error("Discard changes left the window open")
	}
	if data, _ := os.ReadFile(path); strings.Contains(string(data), "ghe.example.com") {
		t.Error("a discarded edit reached the file")
	}
}

func TestSettingsTokenSaysWhenTheKeyringIsUnavailable(t *testing.T) {
	home := settingsHome(t)
	why := "no Secret Service on the session bus: install gnome-keyring"
	store := &fakeTokenStore{err: fmt.Errorf("reading the GitHub token: %w: %s", token.ErrUnavailable, why)}
	_, w := openTestSettings(t, SettingsWindowConfig{
		Path: filepath.Join(home, "config.yaml"), Current: settings.Default(), Token: store,
	})
	if want := "GitHub token: unknown, because the keyring is not available: " + why; w.token.status.Text != want {
		t.Errorf("got status %q, want %q", w.token.status.Text, want)
	}
	store.mu.Lock()
	store.err = fmt.Errorf("storing the GitHub token: %w: %s", token.ErrUnavailable, why)
	store.mu.Unlock()
	w.token.entry.SetText("ghp_x")
	test.Tap(w.token.set)
	w.settle()
	if want := "The token was not stored: storing the GitHub token: the keyring is not available: " + why; w.token.status.Text != want {
		t.Errorf("got status %q, want %q", w.token.status.Text, want)
	}
}

func TestSettingsOpensOneWindowPerApp(t *testing.T) {
	home := settingsHome(t)
	a, w := openTestSettings(t, SettingsWindowConfig{Path: filepath.Join(home, "config.yaml"), Current: settings.Default()})
	if again := OpenSettings(a, SettingsWindowConfig{Path: "/elsewhere.yaml", Current: settings.Default(), Token: &fakeTokenStore{}}); again != w.win {
		t.Error("a second OpenSettings opened another window")
	}
	w.win.Close()
	_, third := openTestSettingsOn(t, a, SettingsWindowConfig{Path: filepath.Join(home, "config.yaml"), Current: settings.Default()})
	if third.settingsWindow == w.settingsWindow {
		t.Error("after closing, OpenSettings raised the closed window")
	}
}

func TestSettingsStartAtLoginCheckbox(t *testing.T) {
	home := settingsHome(t)
	_, w := openTestSettings(t, SettingsWindowConfig{Path: filepath.Join(home, "config.yaml"), Current: settings.Default()})
	if w.autostart.Checked {
		t.Fatal("start at login is checked with no autostart entry")
	}
	test.Tap(w.autostart)
	entry := filepath.Join(home, ".config", "autostart", "dev.segwi.segwi.desktop")
	if _, err := os.Stat(entry); err != nil {
		t.Errorf("checking it wrote no autostart entry: %v", err)
	}
	test.Tap(w.autostart)
	if _, err := os.Stat(entry); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("unchecking it left the entry: %v", err)
	}

	// A config folder that is a file: the entry cannot be written; the box says so and
	// goes back to unchecked.
	blocked := filepath.Join(home, "blocked")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", blocked)
	test.Tap(w.autostart)
	if w.autostart.Checked || !w.autostartErr.Visible() || !strings.HasPrefix(w.autostartErr.Text, "turning on start at login: ") {
		t.Errorf("a failed write: checked %v, error %q", w.autostart.Checked, w.autostartErr.Text)
	}
}

// The form reads as one: every section's fields start at one column, a problem appears
// without moving the fields below it, and the wheel scrolls the form over a field as over
// its label.
func TestSettingsFormLayout(t *testing.T) {
	home := settingsHome(t)
	_, w := openTestSettings(t, SettingsWindowConfig{
		Path:    filepath.Join(home, ".config", "segwi", "config.yaml"),
		Current: sampleSettings(home),
	})
	w.win.Resize(fyne.NewSize(720, 600))
	f := w.form
	c := w.win.Canvas()
	driver := fyne.CurrentApp().Driver()
	x := func(o fyne.CanvasObject) float32 { return driver.AbsolutePositionForObject(o).X }
	for _, e := range []*widget.Entry{f.claudeModel, f.maxConcurrent, f.approvalsTimeout, f.apiURL, f.repos[0].name} {
		if x(e) != x(f.claudePath) {
			t.Errorf("a field starts at x=%v, the Claude Code binary at x=%v: the label columns differ", x(e), x(f.claudePath))
		}
	}

	relayout(w.win.Content())
	below := driver.AbsolutePositionForObject(f.idleTimeout)
	f.maxDuration.SetText("2x")
	if f.errs[keyMaxDuration].Text() == "" {
		t.Fatal("no problem shown for 2x")
	}
	relayout(w.win.Content())
	if got := driver.AbsolutePositionForObject(f.idleTimeout); got != below {
		t.Errorf("the field below moved from %v to %v when a problem appeared", below, got)
	}
	f.maxDuration.SetText("2h")

	before := w.fields.scroll.Offset
	over := driver.AbsolutePositionForObject(f.maxConcurrent).Add(fyne.NewPos(20, 10))
	test.Scroll(c, over, 0, -120)
	if w.fields.scroll.Offset.Y <= before.Y {
		t.Errorf("the wheel over a field left the form at offset %v, want it scrolled down", w.fields.scroll.Offset)
	}
}

// relayout lays o out again from the top, as a window does when it draws after a change
// of size: the test driver lays out only on Resize.
func relayout(o fyne.CanvasObject) {
	switch x := o.(type) {
	case *fyne.Container:
		x.Refresh()
		for _, c := range x.Objects {
			relayout(c)
		}
	case fyne.Widget:
		r := test.WidgetRenderer(x)
		r.Layout(x.Size())
		for _, c := range r.Objects() {
			relayout(c)
		}
	}
}

// The provenance switches show the settings in force, on by default, and what is saved
// says which the person turned off.
func TestSettingsSaveSendsTheProvenanceSwitches(t *testing.T) {
	home := settingsHome(t)
	var saved []settings.Provenance
	_, w := openTestSettings(t, SettingsWindowConfig{
		Path: filepath.Join(home, "config.yaml"), Current: settings.Default(),
		Save: func(_ string, s settings.Settings) error { saved = append(saved, s.Provenance); return nil },
	})
	f := w.form
	if !f.trailer.Checked || !f.approvalsListed.Checked {
		t.Fatalf("the defaults show as trailer %v, approvals %v; want both on", f.trailer.Checked, f.approvalsListed.Checked)
	}
	test.Tap(f.approvalsListed)
	test.Tap(settingsButton(t, w.win, "Save"))
	w.settle()
	test.Tap(f.trailer)
	test.Tap(f.approvalsListed)
	test.Tap(settingsButton(t, w.win, "Save"))
	w.settle()
	want := []settings.Provenance{{Trailer: true}, {Approvals: true}}
	if diff := cmp.Diff(want, saved); diff != "" {
		t.Errorf("segwi.provenance sent to SaveSettings (-want +got):\n%s", diff)
	}
}

// The window does not edit segwi.runtimes, and a save keeps the runtimes in force: saving
// it once dropped them from what the person confirmed, and they waited again.
func TestSettingsSaveKeepsTheRuntimesInForce(t *testing.T) {
	home := settingsHome(t)
	cur := settings.Default()
	cur.Runtimes = []settings.Runtime{{Name: "codex", Command: []string{"codex-acp", "--x"}, Env: map[string]string{"CODEX_HOME": "/c"}}}
	var saved [][]settings.Runtime
	_, w := openTestSettings(t, SettingsWindowConfig{
		Path: filepath.Join(home, "config.yaml"), Current: cur,
		Save: func(_ string, s settings.Settings) error { saved = append(saved, s.Runtimes); return nil },
	})
	test.Tap(w.form.passForgeTokens)
	test.Tap(settingsButton(t, w.win, "Save"))
	w.settle()
	if diff := cmp.Diff([][]settings.Runtime{cur.Runtimes}, saved); diff != "" {
		t.Errorf("segwi.runtimes sent to SaveSettings (-want +got):\n%s", diff)
	}
}
