package approvals_test

import (
	"fmt"

	"github.com/segwi/segwi/approvals"
)

func ExampleTrusted_Match() {
	trusted, err := approvals.ParseTrusted([]string{"git status", "go test"})
	if err != nil {
		panic(err)
	}
	for _, script := range []string{
		"git status --short && go test ./...",
		"git statusx",
		"go test ./... > out.txt",
		"git status; rm -rf build",
	} {
		rule, ok := trusted.Match(script)
		fmt.Printf("%-38q allowed=%-5v rule=%q\n", script, ok, rule)
	}
	// Output:
	// "git status --short && go test ./..."  allowed=true  rule="git status, go test"
	// "git statusx"                          allowed=false rule=""
	// "go test ./... > out.txt"              allowed=false rule=""
	// "git status; rm -rf build"             allowed=false rule=""
}
