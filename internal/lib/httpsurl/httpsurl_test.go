package httpsurl

import (
	"net/url"
	"testing"
)

func TestAllowed(t *testing.T) {
	tests := []struct {
		name     string
		raw      string
		loopback bool
		want     bool
	}{
		{"https is allowed", "https://api.github.com", false, true},
		{"the scheme is read without case", "HTTPS://ghe.example.com/api/v3", false, true},
		{"https without a host is not", "https:///api/v3", false, false},
		{"http is refused", "http://ghe.example.com/api/v3", false, false},
		{"http beyond loopback is refused even when loopback is allowed", "http://ghe.example.com/api/v3", true, false},
		{"loopback http is refused without the option", "http://127.0.0.1:8080/api/v3", false, false},
		{"loopback http is allowed with the option", "http://127.0.0.1:8080/api/v3", true, true},
		{"another loopback address is allowed with the option", "http://127.9.9.9/", true, true},
		{"localhost is allowed with the option", "http://localhost:9/", true, true},
		{"ipv6 loopback is allowed with the option", "http://[::1]:9/", true, true},
		{"a name that starts like localhost is not loopback", "http://localhost.evil.example/", true, false},
		{"ssh is refused", "ssh://git@github.com/a/b", true, false},
		{"file is refused", "file:///srv/git", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := url.Parse(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			if got := Allowed(u, tt.loopback); got != tt.want {
				t.Errorf("Allowed(%s, %v) = %v, want %v", tt.raw, tt.loopback, got, tt.want)
			}
		})
	}
}
