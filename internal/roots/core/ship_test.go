package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/changes"
	"github.com/segwi/segwi/settings"
)

// conversation makes what a run and its continuation leave in a checkout, without Claude
// Code: the person's notes.txt changed before the first run, the first run edits
// hello.txt, the continuation adds x.txt; each run's base is read as segwi reads it when
// a run starts. It returns the checkout, the state folder and the two runs' ids.
func conversation(t *testing.T, lastState runs.State) (checkout, state, first, next string) {
	t.Helper()
	ctx := context.Background()
	g := gitcmd.New("", "", nil)
	checkout, state = claudetest.Checkout(t), t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(checkout, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("notes.txt", "my own notes\n")
	base1 := changes.ReadBase(ctx, g, checkout)
	write("hello.txt", "hello from the first run\n")
	base2 := changes.ReadBase(ctx, g, checkout)
	write("x.txt", "made by the continuation\n")

	t0 := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	first, next = "20260314-090000-aaaaaa", "20260314-091000-bbbbbb"
	records.WriteRun(t, state, runs.Info{ID: first, Kind: runs.KindBuild, Checkout: checkout, Prompt: "Greet the reader\nwarmly",
		State: runs.StateSucceeded, Created: t0, Base: &base1, ContinuedBy: []string{next}})
	records.WriteRun(t, state, runs.Info{ID: next, Kind: runs.KindBuild, Checkout: checkout, Prompt: "Add x.txt too",
		State: lastState, Created: t0.Add(10 * time.Minute), Base: &base2, ContinuedFrom: first})
	if _, err := runs.AppendEvent(state, next, runs.Event{Type: runs.EventText, Text: "The greeting is warmer, and x.txt is there."}); err != nil {
		t.Fatal(err)
	}
	return checkout, state, first, next
}

// A run and its continuation are one piece of work: their changes are read from the first
// run's base, and a commit of either holds both runs' files (the person's file left out),
// titled after the first task, with Claude's last words and the runs' trailer, unless the
// settings turn the trailer off.
func TestACommitOfAContinuedRunHoldsTheWholeConversation(t *testing.T) {
	for _, trailer := range []bool{true, false} {
		name := "with the trailer"
		if !trailer {
			name = "with the trailer turned off"
		}
		t.Run(name, func(t *testing.T) {
			checkout, state, first, next := conversation(t, runs.StateSucceeded)
			s := Shipper{StateDir: state, Settings: settings.Default()}
			s.Settings.Provenance.Trailer = trailer
			ctx := context.Background()

			snap, conv, err := s.Changes(ctx, next)
			if err != nil {
				t.Fatal(err)
			}
			snap.Close()
			if ids := conv.IDs(); !slices.Equal(ids, []string{first, next}) {
				t.Errorf("the continuation's changes are of the conversation %q, want %q", ids, []string{first, next})
			}
			var files []string
			for _, f := range snap.Files {
				note := ""
				if f.DirtyAtBase {
					note = " (before)"
				}
				files = append(files, f.Path+note)
			}
			if want := []string{"hello.txt", "notes.txt (before)", "x.txt"}; !slices.Equal(files, want) {
				t.Errorf("the continuation's changes are %q, want %q: the first run's edit is the conversation's", files, want)
			}

			c, err := s.Commit(ctx, first, changes.CommitOptions{})
			if err != nil {
				t.Fatalf("Commit: %v", err)
			}
			if !slices.Equal(c.Files, []string{"hello.txt", "x.txt"}) || !slices.Equal(c.LeftOut, []string{"notes.txt"}) {
				t.Errorf("committed %q leaving out %q, want hello.txt and x.txt, leaving out notes.txt", c.Files, c.LeftOut)
			}
			msg := claudetest.Git(t, checkout, "log", "-1", "--format=%B")
			want := "Greet the reader\n\nThe greeting is warmer, and x.txt is there."
			if trailer {
				want += "\n\nSegwi-Runs: " + first + ", " + next
			}
			if msg != want {
				t.Errorf("the commit message is %q, want %q", msg, want)
			}
			if got := claudetest.Git(t, checkout, "log", "-1", "--format=%(trailers:key=Segwi-Runs,valueonly)"); (got != "") != trailer {
				t.Errorf("git reads the Segwi-Runs trailer as %q (trailer on: %v)", got, trailer)
			}
		})
	}
}

// Nothing of a conversation ships while one of its runs still goes: a commit through the
// first run names the continuation that has not ended.
func TestAConversationWithARunGoingIsNotShipped(t *testing.T) {
	_, state, first, next := conversation(t, runs.StateRunning)
	s := Shipper{StateDir: state, Settings: settings.Default()}
	_, err := s.Commit(context.Background(), first, changes.CommitOptions{})
	if !errors.Is(err, ErrNotEnded) || !strings.Contains(err.Error(), "run "+next+", which continues it, is running") {
		t.Errorf("Commit = %v, want a refusal naming the continuation that is running", err)
	}
	if err := s.CheckPush(context.Background(), first); err == nil || !strings.Contains(err.Error(), "still") {
		t.Errorf("CheckPush = %v, want a refusal while the conversation goes on", err)
	}
}
