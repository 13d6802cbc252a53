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

// A configured secret with a quote and a '<' reaches JSON as `a<b\"c` when the writer does
// not escape HTML, as Claude Code's stream-json and segwi's own record do; encoding/json's
// default form `a\u003cb\"c` is not the only one to mask.
func TestSecretInJSONWithoutHTMLEscapingIsMasked(t *testing.T) {
	const secret = `pa<ss"word&0123`
	for _, line := range []string{
		`{"text":"the key is pa<ss\"word&0123."}`,
		`{"text":"the key is pa\u003css\"word\u00260123."}`,
	} {
		if got := New(secret).String(line); strings.Contains(got, "0123") {
			t.Errorf("%s: secret kept: %s", line, got)
		}
	}
}
