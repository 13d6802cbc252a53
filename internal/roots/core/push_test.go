package core

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/segwi/segwi/settings"
)

func TestPushRequestNamesTheRepositorysRemoteAndTheTokensHosts(t *testing.T) {
	web := t.TempDir()
	link := filepath.Join(t.TempDir(), "web-link")
	if err := os.Symlink(web, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		repos     []settings.Repository
		apiURL    string
		checkout  string
		remote    string
		tokenHost string
	}{
		{"a checkout no repository names pushes to origin on github.com", nil, "https://api.github.com", web, "origin", "github.com"},
		{"a repository's own remote is used", []settings.Repository{{Name: "web", Path: web, Remote: "fork"}}, "https://api.github.com", web, "fork", "github.com"},
		{"the repository is found through a symlink", []settings.Repository{{Name: "web", Path: link, Remote: "fork"}}, "", web, "fork", "github.com"},
		{"GitHub Enterprise's API names the token's host", nil, "https://git.example.com/api/v3", web, "origin", "git.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := settings.Settings{Repositories: tt.repos, GitHub: settings.GitHub{APIURL: tt.apiURL}}
			req := PushRequest(s, t.TempDir(), "run-1", tt.checkout, nil)
			if req.Remote != tt.remote || !slices.Equal(req.TokenHosts, []string{tt.tokenHost}) || req.Checkout != tt.checkout {
				t.Errorf("got remote %q, token hosts %v, checkout %q; want %q, [%s], %q",
					req.Remote, req.TokenHosts, req.Checkout, tt.remote, tt.tokenHost, tt.checkout)
			}
		})
	}
}
