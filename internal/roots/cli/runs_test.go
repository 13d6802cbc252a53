package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/runs"
)

func TestRunsListShowAndEvents(t *testing.T) {
	home := isolate(t)
	t.Run("with no runs, list says where it looked", func(t *testing.T) {
		r := segwi(t, "", "runs")
		want := "no runs recorded in " + filepath.Join(home, "state", "segwi", "runs") + " yet; start one with segwi run\n"
		if r.code != 0 || r.stdout != want {
			t.Errorf("got exit %d, stdout %q; want 0, %q", r.code, r.stdout, want)
		}
	})
	cfg := runConfig(t, "")
	checkout := newCheckout(t)
	first := runIDLine(segwi(t, "", "--config", cfg, "run", "--checkout", checkout, "fake:success\nand a second line").stderr)
	second := runIDLine(segwi(t, "", "--config", cfg, "run", "--kind", "ask", "--checkout", checkout, "fake:fail").stderr)
	if first == "" || second == "" {
		t.Fatal("the runs did not start")
	}

	t.Run("list shows the runs newest first", func(t *testing.T) {
		for _, args := range [][]string{{"runs"}, {"runs", "list"}} {
			r := segwi(t, "", args...)
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			if r.code != 0 || len(lines) != 3 {
				t.Fatalf("%v: got exit %d, stdout:\n%s", args, r.code, r.stdout)
			}
			if f := strings.Fields(lines[0]); strings.Join(f, " ") != "ID KIND STATE STARTED CHECKOUT COST" {
				t.Errorf("header %q", lines[0])
			}
			for i, want := range [][]string{{second, "ask", "failed", checkout, "$0.5000"}, {first, "build", "succeeded", checkout, "$0.0123"}} {
				f := strings.Fields(lines[i+1])
				got := []string{f[0], f[1], f[2], f[5], f[6]}
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("line %d: got %q, want %q", i+1, got, want)
				}
			}
		}
	})
	t.Run("show prints the record, by a unique start or end of the id too", func(t *testing.T) {
		r := segwi(t, "", "runs", "show", first)
		for _, want := range []string{"run        " + first, "kind       build", "state      succeeded", "checkout   " + checkout,
			"exit code  0", "cost       $0.0123", "session    sess-1", "folder     " + filepath.Join(home, "state", "segwi", "runs", first),
			"command    " + fakeClaude(t) + " -p ", "prompt:\n  fake:success\n  and a second line\n"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("show lacks %q:\n%s", want, r.stdout)
			}
		}
		r2 := segwi(t, "", "runs", "show", second[:len(second)-2])
		if r2.code != 0 || !strings.Contains(r2.stdout, "state      failed: claude exited with code 1") {
			t.Errorf("show by prefix: got exit %d, stdout:\n%s", r2.code, r2.stdout)
		}
		suffix := first[strings.LastIndex(first, "-")+1:] // the random end, as the list shows it
		if r := segwi(t, "", "runs", "show", suffix); r.code != 0 || !strings.Contains(r.stdout, "run        "+first) {
			t.Errorf("show by the id's random end %q: got exit %d, stdout %q, stderr %q", suffix, r.code, r.stdout, r.stderr)
		}
		var info runs.Info
		if r3 := segwi(t, "", "runs", "show", "--json", first); json.Unmarshal([]byte(r3.stdout), &info) != nil || info.ID != first {
			t.Errorf("show --json: got %q", r3.stdout)
		}
		processes := "processes  kept in cgroup " + info.Cgroup + "\n"
		if info.Cgroup == "" {
			processes = "processes  swept at the end, no cgroup: " + info.NoCgroup + "\n"
		}
		if info.Cgroup == "" && info.NoCgroup == "" || !strings.Contains(r.stdout, processes) {
			t.Errorf("show lacks %q (run.json: cgroup %q, noCgroup %q):\n%s", processes, info.Cgroup, info.NoCgroup, r.stdout)
		}
	})
	t.Run("events prints the recorded events, readable or as JSON", func(t *testing.T) {
		r := segwi(t, "", "runs", "events", first)
		if r.code != 0 || !strings.Contains(r.stdout, "claude    Looking at the checkout.⏎Second line.") || !strings.Contains(r.stdout, "state     succeeded") {
			t.Errorf("got exit %d, stdout:\n%s", r.code, r.stdout)
		}
		rj := segwi(t, "", "runs", "events", "--json", first)
		lines := strings.Split(strings.TrimSpace(rj.stdout), "\n")
		for i, line := range lines {
			var e runs.Event
			if err := json.Unmarshal([]byte(line), &e); err != nil || e.Seq != int64(i+1) || e.RunID != first {
				t.Fatalf("line %d is not event %d of the run: %q (%v)", i, i+1, line, err)
			}
		}
	})
	t.Run("an id two runs start with is an error naming both", func(t *testing.T) {
		for _, verb := range []string{"show", "events"} {
			r := segwi(t, "", "runs", verb, first[:4]) // the year
			both := []string{first, second}
			slices.Sort(both) // by name: in one second, the random ends decide
			want := `run id "` + first[:4] + `" is ambiguous: 2 runs match it (` + strings.Join(both, ", ") + "); give more of it"
			if r.code != 1 || !strings.Contains(r.stderr, want) {
				t.Errorf("runs %s: got exit %d, stderr %q; want it to say %q", verb, r.code, r.stderr, want)
			}
		}
	})
	t.Run("an unknown id is an error naming it", func(t *testing.T) {
		for _, verb := range []string{"show", "events"} {
			r := segwi(t, "", "runs", verb, "20990101-nope")
			if r.code != 1 || !strings.Contains(r.stderr, `run "20990101-nope": run not found in `) {
				t.Errorf("runs %s: got exit %d, stderr %q", verb, r.code, r.stderr)
			}
		}
		if r := segwi(t, "", "runs", "show"); r.code != 2 {
			t.Errorf("runs show without an id: got exit %d, want 2", r.code)
		}
	})
}

func TestRunsListMarksARunWhoseSegwiDiedInterrupted(t *testing.T) {
	home := isolate(t)
	dir := filepath.Join(home, "state", "segwi", "runs", "20260101-000000-dead")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	left := runs.Info{ID: "20260101-000000-dead", Kind: runs.KindBuild, Checkout: home, State: runs.StateRunning,
		Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	b, _ := json.Marshal(left)
	if err := os.WriteFile(filepath.Join(dir, "run.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := segwi(t, "", "runs")
	if r.code != 0 || !strings.Contains(r.stdout, "interrupted") || strings.Contains(r.stdout, "running") {
		t.Errorf("got exit %d, stdout:\n%s\nwant the run listed as interrupted", r.code, r.stdout)
	}
}
