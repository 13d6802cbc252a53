package acp

import "time"

// SetHandshakeWait makes the handshake wait d, until the returned func puts it back.
func SetHandshakeWait(d time.Duration) func() {
	old := handshakeWait
	handshakeWait = d
	return func() { handshakeWait = old }
}
