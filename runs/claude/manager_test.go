package claude_test

import (
	"context"
	"testing"
	"time"

	"github.com/segwi/segwi/runs"
)

// newManager returns a Manager of cfg whose runs are stopped at the test's end.
func newManager(t *testing.T, cfg runs.Config) *runs.Manager {
	t.Helper()
	m, err := runs.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		m.StopAll(ctx)
	})
	return m
}
