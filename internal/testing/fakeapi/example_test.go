package fakeapi_test

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"

	"github.com/segwi/segwi/internal/testing/fakeapi"
)

// A scripted server answers the first turn with a Bash call. Claude Code would run it (the
// verdict is not_flagged) and send the result back in the next request.
func Example() {
	srv, err := fakeapi.Start(fakeapi.Turns(
		fakeapi.Say(fakeapi.Text("Let me look."), fakeapi.ToolUse("Bash", fakeapi.Input{"command": "ls"})),
	))
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	body := `{"model":"claude-opus-5-5","stream":true,"tools":[{"name":"Bash"}],` +
		`"messages":[{"role":"user","content":"What is here?"}]}`
	resp, err := http.Post(srv.URL+"/v1/messages?beta=true", "application/json", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			fmt.Println(name)
		}
	}
	fmt.Println("turn of the request:", srv.Last().Turn())
	// Output:
	// message_start
	// content_block_start
	// content_block_delta
	// content_block_stop
	// content_block_start
	// content_block_delta
	// content_block_stop
	// message_delta
	// message_stop
	// turn of the request: 0
}
