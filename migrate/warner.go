package migrate

import (
	"fmt"
	"io"
	"sync"
)

// Warner remembers which retired keys a process has already warned about, so each one is
// warned about once even when the settings are loaded again after an edit. A key added by a
// later edit is new and is warned about once. The zero value is ready to use; a Warner is
// safe for concurrent use.
type Warner struct {
	mu     sync.Mutex
	warned map[string]bool
}

// NewWarner returns an empty Warner.
func NewWarner() *Warner { return &Warner{} }

// Fresh returns the findings not returned by an earlier call, and remembers them. A key is
// identified by its path as written and its repository's name.
func (w *Warner) Fresh(found []Retired) []Retired {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.warned == nil {
		w.warned = make(map[string]bool)
	}
	var fresh []Retired
	for _, r := range found {
		id := r.Key + "\x00" + r.Repository
		if w.warned[id] {
			continue
		}
		w.warned[id] = true
		fresh = append(fresh, r)
	}
	return fresh
}

// Warn writes one line to out for each finding not warned about before, naming file (the
// config file the findings came from), and returns how many lines it wrote.
func (w *Warner) Warn(out io.Writer, file string, found []Retired) int {
	fresh := w.Fresh(found)
	for _, r := range fresh {
		fmt.Fprintf(out, "warning: %s: %s\n", file, r.Message())
	}
	return len(fresh)
}
