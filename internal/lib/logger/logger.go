// Package logger is how segwi's parts write to its log: a Logf, printf-style, which every
// part that logs takes from the one that builds it (the tray process, a command, the
// window process), as tailscale's logger.Logf. A part never picks a log of its own.
//
// The rule for nil: a nil Logf writes nothing, and code that logs calls Printf, which
// holds to it; no part replaces a nil Logf with another.
package logger

import (
	"fmt"
	"io"
	"log"
	"strings"
)

// Logf writes one line to a log, printf-style; the line needs no newline at its end.
type Logf func(format string, args ...any)

// Printf writes a line through l; a nil l writes nothing.
func (l Logf) Printf(format string, args ...any) {
	if l != nil {
		l(format, args...)
	}
}

// Std returns a Logf to the standard library's log (stderr, each line dated), each line
// after prefix ("segwi: ").
func Std(prefix string) Logf {
	return func(format string, args ...any) { log.Printf(prefix+format, args...) }
}

// To returns a Logf to w, each line after prefix ("warning: ") and ended by a newline. A
// failed write is dropped: a log that cannot be written must not stop what logs.
func To(w io.Writer, prefix string) Logf {
	return func(format string, args ...any) {
		line := prefix + fmt.Sprintf(format, args...)
		if !strings.HasSuffix(line, "\n") {
			line += "\n"
		}
		io.WriteString(w, line) //nolint:errcheck // see above
	}
}
