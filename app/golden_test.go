package app

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// updateGoldens is the one -update flag of this package's tests: `go test ./app/ -update`
// rewrites every markup golden file under testdata/ from what the tests render. Review the
// diff before committing it.
var updateGoldens = flag.Bool("update", false, "rewrite the markup golden files under testdata/ from what the tests render")

// assertMarkup compares c's markup with the golden file testdata/name, as fyne's
// test.AssertRendersToMarkup does: a mismatch or a missing golden fails the test, and what
// was rendered is written to testdata/failed/name for review. Under -update it first
// rewrites testdata/name, so the comparison then holds.
func assertMarkup(t *testing.T, name string, c fyne.Canvas) {
	t.Helper()
	if *updateGoldens {
		path := filepath.Join("testdata", name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("updating the golden file %s: %v", path, err)
		}
		if err := os.WriteFile(path, []byte(test.RenderToMarkup(c)), 0o644); err != nil {
			t.Fatalf("updating the golden file %s: %v", path, err)
		}
		t.Logf("rewrote %s", path)
	}
	test.AssertRendersToMarkup(t, name, c)
}
