package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
)

// A C.UTF-8 locale is common on servers and in containers; Fyne cannot parse it and used to
// log an error on every start of segwi, commands included. segwi links no Fyne since the
// windows are segwi-windows's (whose own test checks its start), and must stay quiet.
func TestACUTF8LocaleGivesNoFyneNoise(t *testing.T) {
	twoAtATime(t)
	home := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, ".state")}

	cmd := exec.Command(segwiBin, "version")
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("segwi version: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("segwi version wrote to stderr under LANG=C.UTF-8:\n%s", stderr.String())
	}

	// The workaround (package fynelocale) set LANGUAGE for Fyne's start-up only: a run
	// must not inherit it, nor any other change to the person's locale.
	seen := filepath.Join(home, "language-seen")
	claude := filepath.Join(home, "claude")
	script := "#!/bin/sh\nprintf '%s' \"${LANGUAGE-unset}\" > " + seen + "\nexit 1\n"
	if err := os.WriteFile(claude, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(home, ".config", "segwi", "config.yaml")
	os.MkdirAll(filepath.Dir(config), 0o755)
	if err := os.WriteFile(config, []byte("segwi:\n  claude:\n    path: "+claude+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(segwiBin, "run", "--checkout", claudetest.Checkout(t), "hello")
	run.Env = env
	out, _ := run.CombinedOutput() // the stand-in claude fails on purpose
	got, err := os.ReadFile(seen)
	if err != nil {
		t.Fatalf("the run's claude never started: %v\n%s", err, out)
	}
	if string(got) != "unset" {
		t.Errorf("the run's environment has LANGUAGE=%q; want it unset, as the person's was", got)
	}
}
