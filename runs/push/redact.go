package push

import (
	"encoding/base64"
	"strings"
)

// redactedToken replaces the token wherever it appears in recorded or shown text.
const redactedToken = "[token]"

// redactor removes a token, in the forms git could print it, and URL credentials from text.
type redactor struct {
	secrets []string
}

// newRedactor returns a redactor for token and the Basic authorization value git would
// build from it. An empty token redacts only URL credentials.
func newRedactor(username, token string) redactor {
	if token == "" {
		return redactor{}
	}
	basic := base64.StdEncoding.EncodeToString([]byte(username + ":" + token))
	return redactor{secrets: []string{basic, token}}
}

// redact returns s with the token and URL credentials removed.
func (r redactor) redact(s string) string {
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, redactedToken)
	}
	return redactURLs(s)
}
