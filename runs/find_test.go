package runs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Run ids start with the date and time, so the runs of one day share their first
// fifteen characters: a person tells them apart by the random end they see in the list.
func TestLoadFindsARunByAUniquePartOfItsID(t *testing.T) {
	state := t.TempDir()
	for _, id := range []string{"20250102-150405-e5dc0e", "20250102-150405-ab12cd", "20250103-090000-00e5dc", "20250104-120000-12dc0e"} {
		dir := filepath.Join(RunsDir(state), id)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := writeInfo(dir, Info{ID: id, Kind: KindBuild, State: StateSucceeded, Created: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		id   string
		want string // the run found; "" when none is
		says []string
	}{
		{"the whole id", "20250102-150405-e5dc0e", "20250102-150405-e5dc0e", nil},
		{"a unique start", "20250103", "20250103-090000-00e5dc", nil},
		{"the random suffix", "e5dc0e", "20250102-150405-e5dc0e", nil},
		{"the time and the suffix", "150405-ab12cd", "20250102-150405-ab12cd", nil},
		{"a start two runs share is ambiguous and names both", "20250102", "",
			[]string{`run id "20250102" is ambiguous: 2 runs match it (20250102-150405-ab12cd, 20250102-150405-e5dc0e); give more of it`}},
		{"an end two runs share is ambiguous", "dc0e", "",
			[]string{"2 runs match it (20250102-150405-e5dc0e, 20250104-120000-12dc0e)"}},
		{"a part in the middle is not an id", "5dc0", "", []string{`run "5dc0": run not found in`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := Load(state, tt.id)
			if tt.want != "" {
				if err != nil || info.ID != tt.want {
					t.Fatalf("Load(%q) = %q, %v; want %q", tt.id, info.ID, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Load(%q) found %q, want an error", tt.id, info.ID)
			}
			for _, s := range tt.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Load(%q) error %q does not say %q", tt.id, err, s)
				}
			}
		})
	}
}

// A start that many runs share names a few of them, not a screenful.
func TestAnAmbiguousIDNamesAFewRuns(t *testing.T) {
	state := t.TempDir()
	for i := range 25 {
		id := fmt.Sprintf("20250102-1504%02d-aaaa%02d", i, i)
		if err := os.MkdirAll(filepath.Join(RunsDir(state), id), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Load(state, "2025")
	if err == nil || !strings.Contains(err.Error(), "25 runs match it (20250102-150400-aaaa00, ") ||
		!strings.Contains(err.Error(), "20250102-150409-aaaa09 and 15 more)") {
		t.Errorf("Load = %v, want the first ten of 25 runs named and the rest counted", err)
	}
	if errors.Is(err, ErrNotFound) {
		t.Errorf("an ambiguous id is not a missing run: %v", err)
	}
}
