package push

import "fmt"

// RefusedError is returned when segwi will not push, before it reads the token (except for
// the token reasons themselves) and before any network call.
type RefusedError struct {
	Reason Reason // why, for code
	Msg    string // what happened and what to do, for a person
}

// Error returns the words for a person, prefixed by the operation.
func (e *RefusedError) Error() string { return "push refused: " + e.Msg }

func refuse(reason Reason, format string, args ...any) *RefusedError {
	return &RefusedError{Reason: reason, Msg: fmt.Sprintf(format, args...)}
}
