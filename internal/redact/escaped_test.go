package redact

import (
	"strings"
	"testing"
)

// A Basic credential in a JSON document that Claude Code reads or writes reaches the
// stream-json line inside a JSON string, so its quotes are escaped (\"); it must still be
// masked.
func TestAuthorizationInsideAnEscapedJSONStringIsMasked(t *testing.T) {
	const cred = "dXNlcjpzM2NyZXQtcGFzc3dvcmQ="
	line := `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"{\"headers\": {\"Authorization\": \"Basic ` + cred + `\"}}"}]}}`
	if got := New().String(line); strings.Contains(got, cred) {
		t.Errorf("credential kept:\n%s", got)
	}
	var dst []byte
	if got := New().Lines().Append(dst, []byte(line+"\n")); strings.Contains(string(got), cred) {
		t.Errorf("Lines kept the credential too")
	}
}
