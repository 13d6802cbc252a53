package settings

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCheckAppliesLoadsRules(t *testing.T) {
	dir := t.TempDir()
	good := map[string]any{"segwi": map[string]any{
		"runs":         map[string]any{"maxConcurrent": 2, "maxDuration": "90m"},
		"repositories": []any{map[string]any{"name": "web", "path": dir, "remote": ""}},
	}}
	res, err := Check("/c.yaml", good)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 0 {
		t.Fatalf("a good tree has problems: %v", res.Problems)
	}
	if res.Settings.Runs.MaxConcurrent != 2 || res.Settings.Runs.MaxDuration != 90*time.Minute {
		t.Errorf("got runs %+v, want maxConcurrent 2 and maxDuration 90m", res.Settings.Runs)
	}
	if diff := cmp.Diff([]Repository{{Name: "web", Path: dir, Remote: DefaultRemote}}, res.Settings.Repositories); diff != "" {
		t.Errorf("repositories (-want +got):\n%s", diff)
	}

	bad := map[string]any{"segwi": map[string]any{
		"runs": map[string]any{"maxConcurrent": "four", "idleTimeout": "2x"},
	}}
	res, err = Check("/c.yaml", bad)
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{
		{File: "/c.yaml", Key: "segwi.runs.maxConcurrent", Message: `must be a whole number between 1 and 64, got "four"`},
		{File: "/c.yaml", Key: "segwi.runs.idleTimeout", Message: `"2x" is not a duration like 90s, 30m or 2h`},
	}
	if diff := cmp.Diff(want, res.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
