// Package token is what segwi knows of the GitHub token it pushes with, apart from the
// keyring that holds it (package keyring, below): the host a token is saved for (see
// Saved), whether one is saved (State), and the errors a keyring call returns
// (ErrNotFound, ErrUnavailable). The window process shows these without linking the
// keyring; only the tray process and the command line read or write the token.
//
// The token is bound to the host of the GitHub API it was saved for: keyring.For hands it
// only for that host. So an edit of segwi.github.apiURL, or of a checkout's remote, cannot
// send it to another server: the person saves it again for the new host. A token saved
// before segwi recorded hosts counts as saved for GitHub (api.github.com).
package token

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Timeout bounds every keyring call whose context has no earlier deadline.
const Timeout = 5 * time.Second

var (
	// ErrNotFound means the keyring holds no GitHub token for segwi.
	ErrNotFound = errors.New("no GitHub token in the keyring: set one with segwi token set")
	// ErrUnavailable means no keyring could be reached or used; the wrapping error says why
	// and what to do.
	ErrUnavailable = errors.New("the keyring is not available")
)

// GitHubAPIHost is the host of GitHub's own API, whose git host is github.com.
const GitHubAPIHost = "api.github.com"

// Saved is the GitHub token as the keyring holds it.
type Saved struct {
	Token string
	// APIHost is the host of the GitHub API the token was saved for, with its port when
	// that is not the scheme's default: api.github.com, or a GitHub Enterprise host.
	APIHost string
	// Legacy is set for a token saved before segwi recorded the host; it counts as saved
	// for GitHub (GitHubAPIHost).
	Legacy bool
}

// GitHost returns the host git pushes to with the token (see GitHost).
func (s Saved) GitHost() string { return GitHost(s.APIHost) }

// APIHost returns the host of the GitHub API at apiURL, as a token is saved for it:
// lowercased, with its port unless the scheme's default.
func APIHost(apiURL string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(apiURL))
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("%q is not a GitHub API URL: write https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise", apiURL)
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" || port == "443" && u.Scheme == "https" || port == "80" && u.Scheme == "http" {
		if strings.Contains(host, ":") {
			return "[" + host + "]", nil
		}
		return host, nil
	}
	return strings.ToLower(u.Host), nil
}

// APIURL returns the URL of the GitHub API at apiHost: https://api.github.com for GitHub's
// own, https://HOST/api/v3 for GitHub Enterprise.
func APIURL(apiHost string) string {
	if strings.EqualFold(apiHost, GitHubAPIHost) {
		return "https://" + GitHubAPIHost
	}
	return "https://" + apiHost + "/api/v3"
}

// GitHost returns the host git pushes to for the GitHub API host apiHost: github.com for
// GitHub's own API, the same host for GitHub Enterprise (https://HOST/api/v3).
func GitHost(apiHost string) string {
	if strings.EqualFold(apiHost, GitHubAPIHost) {
		return "github.com"
	}
	return apiHost
}

// HostError is For's refusal of a token saved for another host.
type HostError struct {
	SavedFor string // the API host the token was saved for
	Wanted   string // the API host it was asked for
	Legacy   bool   // saved before segwi recorded hosts
}

// Error says which host the token was saved for, and how to save it for the other.
func (e *HostError) Error() string {
	saved := "was saved for " + describeHost(e.SavedFor)
	if e.Legacy {
		saved = "was saved before segwi recorded hosts, so it counts as saved for " + describeHost(e.SavedFor)
	}
	return fmt.Sprintf("the GitHub token %s, not for %s (segwi.github.apiURL), and segwi sends it only to the host it was "+
		"saved for; if %s is yours, save the token again for it: segwi token set, or Set token in segwi's settings window",
		saved, describeHost(e.Wanted), e.Wanted)
}

// describeHost names an API host and the git host that goes with it.
func describeHost(apiHost string) string {
	if git := GitHost(apiHost); git != apiHost {
		return fmt.Sprintf("%s (git: %s)", apiHost, git)
	}
	return apiHost
}

// State is whether a token is stored, and for which host, without the token.
type State struct {
	Set     bool   `json:"set"`
	APIHost string `json:"apiHost,omitempty"` // see Saved
	Legacy  bool   `json:"legacy,omitempty"`  // see Saved
}
