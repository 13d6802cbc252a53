package guard

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeHome writes files (relative path → content) under a new home folder.
func writeHome(t *testing.T, files map[string]string) string {
	t.Helper()
	home := t.TempDir()
	for name, content := range files {
		path := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func actions(s Setup) []string {
	var out []string
	for _, f := range s.Files {
		out = append(out, string(f.Action)+" "+filepath.Base(f.Path))
	}
	return out
}

// In an empty home the setup writes the example as Help shows it, the hook executable,
// and its deny file is one the canary reads; planned again, it keeps every file.
func TestGuardSetupWritesTheExampleInAnEmptyHome(t *testing.T) {
	home := t.TempDir()
	s, err := PlanSetup(home)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(actions(s), ", "), "create guard.deny, create guard.sh, create settings.json"; got != want {
		t.Errorf("planned %s, want %s", got, want)
	}
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name, content string
		mode          os.FileMode
	}{{exampleDenyFile, exampleDeny, 0o644}, {exampleHookFile, exampleHook, 0o755}, {claudeSettingsFile, exampleSettings, 0o644}} {
		path := filepath.Join(home, f.name)
		data, err := os.ReadFile(path)
		if err != nil || string(data) != f.content {
			t.Errorf("%s holds %q (%v), want the example", f.name, data, err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != f.mode {
			t.Errorf("%s: mode %v (%v), want %v", f.name, fi.Mode().Perm(), err, f.mode)
		}
	}
	if got, err := Command(s.Deny); err != nil || got != "echo segwi-canary-guard" {
		t.Errorf("the deny file's first command is %q (%v), want the harmless probe", got, err)
	}
	again, err := PlanSetup(home)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(actions(again), ", "), "keep guard.deny, keep guard.sh, keep settings.json"; got != want {
		t.Errorf("planned again %s, want %s", got, want)
	}
}

// A person's Claude Code settings keep every key, hook and order they have: the guard's
// entry is added after their own PreToolUse entries. Their deny file is kept.
func TestGuardSetupAddsToThePersonsSettingsAndKeepsTheirs(t *testing.T) {
	settings := `{
  "model": "opus",
  "hooks": {
    "PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt.sh"}]}],
    "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "mine.sh"}]}]
  },
  "env": {"A": "1"}
}`
	home := writeHome(t, map[string]string{claudeSettingsFile: settings, exampleDenyFile: "rm -rf /\n"})
	s, err := PlanSetup(home)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(actions(s), ", "), "keep guard.deny, create guard.sh, add to settings.json"; got != want {
		t.Errorf("planned %s, want %s", got, want)
	}
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(home, claudeSettingsFile))
	got := string(data)
	order := []string{`"model": "opus"`, `"PostToolUse"`, `"fmt.sh"`, `"PreToolUse"`, `"mine.sh"`, `"~/.claude/hooks/guard.sh"`, `"env"`}
	at := 0
	for _, want := range order {
		i := strings.Index(got[at:], want)
		if i < 0 {
			t.Fatalf("the settings lack %s after what came before, in this order %q:\n%s", want, order, got)
		}
		at += i
	}
	if fi, _ := os.Stat(filepath.Join(home, claudeSettingsFile)); fi.Mode().Perm() != 0o600 {
		t.Errorf("the settings file's mode is %v, want the person's 0600 kept", fi.Mode().Perm())
	}
	if data, _ := os.ReadFile(filepath.Join(home, exampleDenyFile)); string(data) != "rm -rf /\n" {
		t.Errorf("the person's deny file became %q", data)
	}
}

// What the setup will not do: replace a hook of the person's, or rewrite a settings file it
// cannot read as Claude Code's; and it writes nothing that changed after it was shown.
func TestGuardSetupRefusesWhatItWouldSpoil(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"a hook of the person's", map[string]string{exampleHookFile: "#!/bin/sh\nexit 0\n"}, "is not segwi's example hook"},
		{"settings that are not JSON", map[string]string{claudeSettingsFile: "{model: opus"}, "not a JSON object segwi can read"},
		{"hooks that are not an object", map[string]string{claudeSettingsFile: `{"hooks": []}`}, `"hooks" is not an object`},
		{"PreToolUse that is not a list", map[string]string{claudeSettingsFile: `{"hooks": {"PreToolUse": {}}}`}, `"hooks.PreToolUse" is not a list`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := PlanSetup(writeHome(t, c.files)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("PlanSetup: %v, want an error saying %q", err, c.want)
			}
		})
	}

	home := writeHome(t, map[string]string{claudeSettingsFile: `{"model": "opus"}`})
	s, err := PlanSetup(home)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, claudeSettingsFile), []byte(`{"model": "sonnet"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(); !errors.Is(err, ErrChanged) {
		t.Errorf("Apply after the settings changed: %v, want ErrChanged", err)
	}
	if data, _ := os.ReadFile(filepath.Join(home, claudeSettingsFile)); string(data) != `{"model": "sonnet"}` {
		t.Errorf("the settings became %q", data)
	}
	if _, err := os.Stat(filepath.Join(home, exampleDenyFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the deny file was written though the setup was refused (%v)", err)
	}
}
