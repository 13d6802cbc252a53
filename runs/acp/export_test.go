package acp

import "time"

// SetHandshakeWait makes the handshake wait d for each answer (initialize, session/new),
// until the returned func puts it back.
func SetHandshakeWait(d time.Duration) func() {
	oldInit, old := initWait, handshakeWait
	initWait, handshakeWait = d, d
	return func() { initWait, handshakeWait = oldInit, old }
}
