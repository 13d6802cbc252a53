package token

import "testing"

func TestAPIHost(t *testing.T) {
	for raw, want := range map[string]string{
		"https://api.github.com":              "api.github.com",
		"https://API.GitHub.com:443/":         "api.github.com",
		"https://ghe.example.com/api/v3":      "ghe.example.com",
		"https://ghe.example.com:8443/api/v3": "ghe.example.com:8443",
		"http://127.0.0.1:9/api/v3":           "127.0.0.1:9",
		"https://[::1]/api/v3":                "[::1]",
	} {
		if got, err := APIHost(raw); got != want || err != nil {
			t.Errorf("APIHost(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, bad := range []string{"", "api.github.com", "ssh://git@github.com", "https://"} {
		if got, err := APIHost(bad); err == nil {
			t.Errorf("APIHost(%q) = %q, want an error", bad, got)
		}
	}
}
