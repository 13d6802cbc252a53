package parallel

import (
	"flag"
	"strconv"
	"testing"
)

// TestAtLeastRaisesOnlyALowerDefault raises -parallel past its value, and not below it;
// given on the command line, it is left alone.
func TestAtLeastRaisesOnlyALowerDefault(t *testing.T) {
	f := flag.Lookup("test.parallel")
	was := f.Value.String()
	t.Cleanup(func() { f.Value.Set(was) })
	now, err := strconv.Atoi(was)
	if err != nil {
		t.Fatalf("-parallel is %q: %v", was, err)
	}
	given := false
	flag.Visit(func(v *flag.Flag) { given = given || v.Name == "test.parallel" })

	AtLeast(now - 1)
	if got := f.Value.String(); got != was {
		t.Errorf("AtLeast(%d) set -parallel from %s to %s, want it left at %s", now-1, was, got, was)
	}
	want := strconv.Itoa(now + 5)
	if given {
		want = was
	}
	AtLeast(now + 5)
	if got := f.Value.String(); got != want {
		t.Errorf("AtLeast(%d) with -parallel %s (given on the command line: %v) left it at %s, want %s", now+5, was, given, got, want)
	}
}
