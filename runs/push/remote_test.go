package push

import (
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/lib/redact"
)

func TestCheckRemoteURL(t *testing.T) {
	tests := []struct {
		name       string
		raw        string
		loopback   bool
		hosts      []string
		wantReason Reason // "" when the URL is accepted
		wantWords  string
	}{
		{name: "https on github.com is accepted", raw: "https://github.com/segwi/segwi.git"},
		{name: "the host is compared without case", raw: "https://GitHub.com/segwi/segwi"},
		{name: "an Enterprise host in the token hosts is accepted", raw: "https://git.example.com/a/b.git", hosts: []string{"git.example.com"}},
		{name: "a host with port in the token hosts is accepted", raw: "https://git.example.com:8443/a/b.git", hosts: []string{"git.example.com:8443"}},
		{name: "loopback http is accepted with the test option", raw: "http://127.0.0.1:9/r.git", loopback: true, hosts: []string{"127.0.0.1"}},
		{name: "localhost http is accepted with the test option", raw: "http://localhost:9/r.git", loopback: true, hosts: []string{"localhost"}},
		{name: "scp-like ssh is refused", raw: "git@github.com:segwi/segwi.git", wantReason: ReasonNotHTTPS, wantWords: "(ssh)"},
		{name: "ssh URLs are refused", raw: "ssh://git@github.com/segwi/segwi.git", wantReason: ReasonNotHTTPS, wantWords: "(ssh)"},
		{name: "git protocol is refused", raw: "git://github.com/segwi/segwi.git", wantReason: ReasonNotHTTPS, wantWords: "(git)"},
		{name: "a local path is refused", raw: "/srv/git/segwi.git", wantReason: ReasonNotHTTPS, wantWords: "(a local path)"},
		{name: "a transport that runs a command is named", raw: "ext::sh -c touch% /tmp/pwned", wantReason: ReasonNotHTTPS, wantWords: "(git's ext:: transport)"},
		{name: "file URLs are refused", raw: "file:///srv/git/segwi.git", wantReason: ReasonNotHTTPS, wantWords: "(file)"},
		{name: "http is refused without the test option", raw: "http://127.0.0.1:9/r.git", hosts: []string{"127.0.0.1"}, wantReason: ReasonNotHTTPS, wantWords: "(http)"},
		{name: "http beyond loopback is refused even with the test option", raw: "http://github.com/r.git", loopback: true, wantReason: ReasonNotHTTPS, wantWords: "only over HTTPS"},
		{name: "another host is refused", raw: "https://gitlab.com/a/b.git", wantReason: ReasonTokenHost, wantWords: "only to github.com"},
		{name: "another host is refused, naming the setting that sends the token there", raw: "https://git.example.com:8443/a/b.git", wantReason: ReasonTokenHost,
			wantWords: "if git.example.com is your GitHub Enterprise host, set segwi.github.apiURL to https://git.example.com:8443/api/v3 in segwi's settings"},
		{name: "a look-alike host is refused", raw: "https://github.com.evil.example/a/b.git", wantReason: ReasonTokenHost, wantWords: "github.com.evil.example"},
		{name: "a refusal does not show URL credentials", raw: "https://user:s3cret@gitlab.com/a/b.git", wantReason: ReasonTokenHost, wantWords: "https://gitlab.com/a/b.git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, r := checkRemoteURL("origin", tt.raw, tt.loopback, tt.hosts)
			if tt.wantReason == "" {
				if r != nil {
					t.Fatalf("refused: %v", r)
				}
				return
			}
			if r == nil {
				t.Fatalf("accepted, want refused for %s", tt.wantReason)
			}
			if r.Reason != tt.wantReason || !strings.Contains(r.Msg, tt.wantWords) {
				t.Errorf("refusal = %s %q, want %s containing %q", r.Reason, r.Msg, tt.wantReason, tt.wantWords)
			}
			if strings.Contains(r.Msg, "s3cret") {
				t.Errorf("refusal shows the URL's password: %q", r.Msg)
			}
		})
	}
}

func TestRedactorRemovesTheTokenInEveryFormGitPrints(t *testing.T) {
	r := newRedactor(testToken)
	in := strings.Join([]string{
		"password=" + testToken,
		"Authorization: Basic eC1hY2Nlc3MtdG9rZW46Z2hwX3NlZ3dpVEVTVDAxMjM0NTY3ODlhYmNkZWZnaGlqa2xtbm9wUVJT",
		"b64 eC1hY2Nlc3MtdG9rZW46Z2hwX3NlZ3dpVEVTVDAxMjM0NTY3ODlhYmNkZWZnaGlqa2xtbm9wUVJT alone",
		"fatal: unable to access 'https://x-access-token:" + testToken + "@github.com/a/b.git/'",
		"scp-like git@github.com:a/b.git stays as it is",
	}, "\n")
	got := r.String(in)
	want := strings.Join([]string{
		"password=" + redact.Mask,
		"Authorization: Basic " + redact.Mask,
		"b64 " + redact.Mask + " alone",
		"fatal: unable to access 'https://x-access-token:" + redact.Mask + "@github.com/a/b.git/'",
		"scp-like git@github.com:a/b.git stays as it is",
	}, "\n")
	if got != want {
		t.Errorf("redact =\n%s\nwant\n%s", got, want)
	}
}
