package control

import (
	"errors"
	"fmt"
)

// Hello opens a connection, both ways: each side sends one first, then reads the other's.
type Hello struct {
	// Version is the channel version the sender speaks: Version.
	Version int `json:"version"`
	// Program names the sender for messages, e.g. "segwi 0.4.0 tray".
	Program string `json:"program"`
	// Role is set by the tray only: what it lets this client do.
	Role Role `json:"role,omitempty"`
}

// MessageType returns TypeHello.
func (Hello) MessageType() Type { return TypeHello }

func (h Hello) check() error {
	if h.Version <= 0 {
		return fmt.Errorf("version %d: want a positive version", h.Version)
	}
	return nil
}

// VersionError is the error of a connection whose two sides speak different versions.
type VersionError struct {
	Ours, Theirs             int
	OurProgram, TheirProgram string
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("control: version mismatch: this side (%s) speaks channel version %d, the other side (%s) speaks version %d; "+
		"both must be the same segwi: quit segwi and start it again", e.OurProgram, e.Ours, e.TheirProgram, e.Theirs)
}

// Reply answers one request: its Message.ID is the request's. An empty Error means done.
type Reply struct {
	Error string `json:"error,omitempty"` // what went wrong, for a person to read
	Run   string `json:"run,omitempty"`   // the run a Start started
}

// MessageType returns TypeReply.
func (Reply) MessageType() Type { return TypeReply }

// Err returns the reply's error, or nil when the request was done.
func (r Reply) Err() error {
	if r.Error == "" {
		return nil
	}
	return errors.New(r.Error)
}

// Failed returns the reply of a request that failed with err.
func Failed(err error) Reply {
	if err == nil {
		return Reply{}
	}
	return Reply{Error: err.Error()}
}
