package migrate

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFindNamesEachRetiredKeyAsWritten(t *testing.T) {
	tests := []struct {
		name string
		tree map[string]any
		want []Retired
	}{
		{"no segwi section finds nothing", map[string]any{"other": 1}, nil},
		{"a top-level key keeps its spelling", map[string]any{"segwi": map[string]any{"mcpPermissions": []any{"x"}}},
			[]Retired{{Key: "segwi.mcpPermissions", Setting: "segwi.mcpPermissions"}}},
		{"odd capitalisation is still found", map[string]any{"SegWi": map[string]any{"BRANCHPREFIXES": nil}},
			[]Retired{{Key: "SegWi.BRANCHPREFIXES", Setting: "segwi.branchPrefixes"}}},
		{"a repository key names the repository", map[string]any{"segwi": map[string]any{"repositories": []any{
			map[string]any{"name": "api"},
			map[string]any{"name": "web", "permissions": "x", "allowedDomains": []any{}},
			map[string]any{"Permissions": "x"},
		}}}, []Retired{
			{Key: "segwi.repositories[1].allowedDomains", Repository: "web", Setting: "segwi.repositories[].allowedDomains"},
			{Key: "segwi.repositories[1].permissions", Repository: "web", Setting: "segwi.repositories[].permissions"},
			{Key: "segwi.repositories[2].Permissions", Setting: "segwi.repositories[].permissions"},
		}},
		{"known keys are not retired", map[string]any{"segwi": map[string]any{"runs": map[string]any{"permissions": 1}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Find(tt.tree)); diff != "" {
				t.Errorf("Find (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMessagesSayToDeleteTheKey(t *testing.T) {
	for _, setting := range Settings {
		t.Run(setting+" has a reason and says to delete it", func(t *testing.T) {
			r := Retired{Key: strings.ReplaceAll(setting, "[]", "[0]"), Setting: setting}
			msg := r.Message()
			if reasons[setting] == "" {
				t.Errorf("no reason for %s", setting)
			}
			if !strings.HasPrefix(msg, r.Key+" is retired and has no effect (") || !strings.HasSuffix(msg, "): delete it") {
				t.Errorf("got %q, want it to name %s, say it has no effect and to delete it", msg, r.Key)
			}
		})
	}
	r := Retired{Key: "segwi.repositories[1].permissions", Repository: "web", Setting: "segwi.repositories[].permissions"}
	if got, want := r.Where(), `segwi.repositories[1].permissions (repository "web")`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestIsRetiredCoversKeysUnderARetiredKey(t *testing.T) {
	found := []Retired{{Key: "segwi.mcpPermissions"}}
	tests := []struct {
		path string
		want bool
	}{
		{"segwi.mcpPermissions", true},
		{"SEGWI.MCPPERMISSIONS", true},
		{"segwi.mcpPermissions.allow", true},
		{"segwi.mcpPermissions[0]", true},
		{"segwi.mcpPermissionsX", false},
		{"segwi.runs", false},
	}
	for _, tt := range tests {
		if got := IsRetired(found, tt.path); got != tt.want {
			t.Errorf("IsRetired(%q): got %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestWarnerWarnsOncePerKey(t *testing.T) {
	a := Retired{Key: "segwi.permissions", Setting: "segwi.permissions"}
	b := Retired{Key: "segwi.repositories[0].permissions", Repository: "web", Setting: "segwi.repositories[].permissions"}
	c := Retired{Key: "segwi.repositories[0].permissions", Repository: "api", Setting: "segwi.repositories[].permissions"}
	w := NewWarner()
	steps := []struct {
		name  string
		found []Retired
		want  []Retired
	}{
		{"the first load warns about every key", []Retired{a, b}, []Retired{a, b}},
		{"a reload with the same keys warns about none", []Retired{a, b}, nil},
		{"a reload with a new key warns about that one", []Retired{a, b, c}, []Retired{c}},
		{"another reload warns about none", []Retired{a, b, c}, nil},
	}
	for _, s := range steps {
		if diff := cmp.Diff(s.want, w.Fresh(s.found)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", s.name, diff)
		}
	}
	var out bytes.Buffer
	if n := NewWarner().Warn(&out, "/c.yaml", []Retired{a}); n != 1 {
		t.Errorf("got %d lines, want 1", n)
	}
	if want := "warning: /c.yaml: " + a.Message() + "\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestWarnerIsSafeForConcurrentUse(t *testing.T) {
	w := NewWarner()
	r := []Retired{{Key: "segwi.allowedDomains", Setting: "segwi.allowedDomains"}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := len(w.Fresh(r))
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	if total != 1 {
		t.Errorf("got %d warnings from 8 goroutines, want 1", total)
	}
}
