package push_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/segwi/segwi/runs/push"
)

// The run window's Push button and `segwi push ID` wire Push the same way: the run's
// checkout and remote from the run and the settings, the keyring's Get and its not-found
// sentinel, and a Record that appends the attempt to the run's events.
func ExamplePush() {
	errNotFound := errors.New("token not found") // token.ErrNotFound in segwi
	keyringGet := func(context.Context) (string, error) { return "", errNotFound }

	a, err := push.Push(context.Background(), push.Request{
		Checkout:      "/home/me/src/web",
		Remote:        "origin",
		RunActive:     false,
		Token:         keyringGet,
		TokenNotFound: errNotFound,
		Record:        func(a push.Attempt) { /* append a to the run's events.jsonl */ },
	})
	var refused *push.RefusedError
	switch {
	case errors.As(err, &refused):
		fmt.Println("not pushed:", refused.Msg) // exit status 1 in the CLI
	case err != nil:
		fmt.Println("push failed:", a.Message)
	default:
		fmt.Println(a.Message)
	}
}
