package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAutostartEntryIsWrittenAndRemoved(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	entry := filepath.Join(cfg, "autostart", "dev.segwi.segwi.desktop")
	if AutostartEnabled() {
		t.Fatal("enabled before any entry was written")
	}
	if err := SetAutostart(true); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, _ = filepath.EvalSymlinks(exe)
	for _, want := range []string{"[Desktop Entry]\n", "\nType=Application\n", "\nName=segwi\n", "\nExec=" + execQuote(exe) + "\n",
		"\nIcon=dev.segwi.segwi\n", "\nX-GNOME-Autostart-enabled=true\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the entry lacks %q:\n%s", want, data)
		}
	}
	if !AutostartEnabled() {
		t.Error("not enabled after SetAutostart(true)")
	}

	turnedOff := strings.Replace(string(data), "X-GNOME-Autostart-enabled=true", "X-GNOME-Autostart-enabled=false", 1)
	if err := os.WriteFile(entry, []byte(turnedOff), 0o644); err != nil {
		t.Fatal(err)
	}
	if AutostartEnabled() {
		t.Error("enabled while the desktop turned the entry off")
	}

	if err := SetAutostart(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Errorf("the entry is still there: %v", err)
	}
	if err := SetAutostart(false); err != nil {
		t.Errorf("removing a missing entry: %v", err)
	}
	if AutostartEnabled() {
		t.Error("enabled after SetAutostart(false)")
	}
}

func TestAutostartIgnoresARelativeConfigHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "relative/dir")
	got, err := autostartPath()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".config", "autostart", "dev.segwi.segwi.desktop"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestExecQuote(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/usr/bin/segwi", "/usr/bin/segwi"},
		{"/opt/my apps/segwi", `"/opt/my apps/segwi"`},
		{`/opt/a$b/segwi`, `"/opt/a\\$b/segwi"`},
		{`/opt/a\b/segwi`, `"/opt/a\\\\b/segwi"`},
		{"/opt/100%/segwi", "/opt/100%%/segwi"},
	}
	for _, tt := range tests {
		if got := execQuote(tt.path); got != tt.want {
			t.Errorf("execQuote(%q): got %s, want %s", tt.path, got, tt.want)
		}
	}
}
