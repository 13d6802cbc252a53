package logger

import (
	"bytes"
	"testing"
)

func TestANilLogfWritesNothing(t *testing.T) {
	var l Logf
	l.Printf("nothing %d", 1) // must not panic
}

func TestToWritesOneLineAfterItsPrefix(t *testing.T) {
	var b bytes.Buffer
	l := To(&b, "warning: ")
	l.Printf("settings file %s: %v", "x.yaml", "bad")
	l.Printf("already ended\n")
	if got, want := b.String(), "warning: settings file x.yaml: bad\nwarning: already ended\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
