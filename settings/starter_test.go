package settings

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The starter file a person gets from the app holds every key segwi reads, at its default:
// loaded, it says exactly Default(), with no key unknown and none retired; and it is never
// written over a file that exists.
func TestTheStarterFileLoadsAsTheDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "segwi", "config.yaml")
	if err := CreateStarter(path); err != nil {
		t.Fatal(err)
	}
	res, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 || len(res.Unknown) > 0 || len(res.Retired) > 0 {
		t.Errorf("the starter file has problems %v, unknown keys %v, retired keys %v", res.Problems, res.Unknown, res.Retired)
	}
	if diff := cmp.Diff(Default(), res.Settings); diff != "" {
		t.Errorf("the starter file's settings (-defaults +got):\n%s", diff)
	}
	for _, key := range []string{"claude", "repositories", "maxConcurrent", "maxDuration", "idleTimeout", "stopGrace",
		"passForgeTokens", "timeout", "trusted", "guardDeny", "apiURL", "enabled", "port", "owners", "socket"} {
		if !strings.Contains(Starter(), key+":") {
			t.Errorf("the starter file does not show %s", key)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the starter file: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}

	if err := os.WriteFile(path, []byte("segwi:\n  runs:\n    maxConcurrent: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CreateStarter(path); !errors.Is(err, fs.ErrExist) {
		t.Errorf("CreateStarter over a file = %v, want fs.ErrExist", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "segwi:\n  runs:\n    maxConcurrent: 2\n" {
		t.Errorf("CreateStarter changed the file that was there: %q", data)
	}
	if err := CreateStarter(filepath.Join(t.TempDir(), "config.toml")); err == nil || !strings.Contains(err.Error(), "only YAML") {
		t.Errorf("CreateStarter of a TOML file = %v, want a refusal", err)
	}
}
