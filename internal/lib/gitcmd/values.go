package gitcmd

import (
	"errors"
	"strings"
)

// ErrNoIdentity is wrapped by Identity's error when the person's name or email is not set.
var ErrNoIdentity = errors.New("no name and email set for git")

// Ident is who makes a commit.
type Ident struct {
	Name, Email string
	Date        string // the date git is told to record (GIT_AUTHOR_DATE); "" is now
}

// String is "Name <email>".
func (i Ident) String() string { return i.Name + " <" + i.Email + ">" }

// Env returns the variables that tell git this identity for role AUTHOR or COMMITTER:
// none for an empty field.
func (i Ident) Env(role string) []string {
	var env []string
	for _, kv := range [][2]string{{"NAME", i.Name}, {"EMAIL", i.Email}, {"DATE", i.Date}} {
		if kv[1] != "" {
			env = append(env, "GIT_"+role+"_"+kv[0]+"="+kv[1])
		}
	}
	return env
}

// Identity returns the author and committer of a commit made in the checkout, as git picks
// them: the person's GIT_AUTHOR_NAME (and the other variables) first, then author.name,
// committer.name and user.name (and emails) from their configuration, then EMAIL. Where git
// would guess from the system's user database, Identity fails with ErrNoIdentity.
func (c *Checkout) Identity() (author, committer Ident, err error) {
	pick := func(role string) (Ident, bool) {
		lower := strings.ToLower(role)
		id := Ident{Name: c.g.Person("GIT_" + role + "_NAME"), Email: c.g.Person("GIT_" + role + "_EMAIL"), Date: c.g.Person("GIT_" + role + "_DATE")}
		for _, key := range []string{lower + ".name", "user.name"} {
			if v, ok := c.Config.Get(key); ok && id.Name == "" {
				id.Name = v
			}
		}
		for _, key := range []string{lower + ".email", "user.email"} {
			if v, ok := c.Config.Get(key); ok && id.Email == "" {
				id.Email = v
			}
		}
		if id.Email == "" {
			id.Email = c.g.Person("EMAIL")
		}
		id.Name, id.Email = strings.TrimSpace(id.Name), strings.Trim(strings.TrimSpace(id.Email), "<>")
		return id, id.Name != "" && id.Email != "" && !strings.ContainsAny(id.Name+id.Email, "<>\n")
	}
	a, okA := pick("AUTHOR")
	cm, okC := pick("COMMITTER")
	if !okA || !okC {
		return Ident{}, Ident{}, ErrNoIdentity
	}
	return a, cm, nil
}

// RemoteConfigured reports whether the checkout's configuration names the remote name.
func (c *Checkout) RemoteConfigured(name string) bool {
	prefix := "remote." + name + "."
	for _, e := range c.Config.entries {
		if strings.HasPrefix(e.key, prefix) && !strings.Contains(e.key[len(prefix):], ".") {
			return true
		}
	}
	return false
}

// PushURLs returns the URLs git pushes the remote name to (git remote get-url --push
// --all): its pushurl values, or else its url values, with url.BASE.insteadOf and
// pushInsteadOf applied as git applies them.
func (c *Checkout) PushURLs(name string) []string {
	var insteadOf, pushInsteadOf []rewrite
	for _, e := range c.Config.entries {
		rest, ok := strings.CutPrefix(e.key, "url.")
		if !ok {
			continue
		}
		switch {
		case strings.HasSuffix(rest, ".insteadof"):
			insteadOf = append(insteadOf, rewrite{base: strings.TrimSuffix(rest, ".insteadof"), prefix: e.value})
		case strings.HasSuffix(rest, ".pushinsteadof"):
			pushInsteadOf = append(pushInsteadOf, rewrite{base: strings.TrimSuffix(rest, ".pushinsteadof"), prefix: e.value})
		}
	}
	pushurls := c.Config.All("remote." + name + ".pushurl")
	urls := c.Config.All("remote." + name + ".url")
	if len(urls) == 0 && len(pushurls) == 0 {
		urls = []string{name} // git takes a remote without a URL as a URL
	}
	var out []string
	if len(pushurls) > 0 {
		for _, u := range pushurls {
			out = append(out, applyRewrite(u, insteadOf))
		}
		return out
	}
	// git: with no pushurl, the URLs that pushInsteadOf rewrites become the push URLs;
	// when none does, the URLs themselves, insteadOf applied.
	for _, u := range urls {
		if r, ok := longestRewrite(u, pushInsteadOf); ok {
			out = append(out, r)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, u := range urls {
		out = append(out, applyRewrite(u, insteadOf))
	}
	return out
}

// rewrite is one url.BASE.insteadOf = PREFIX.
type rewrite struct{ base, prefix string }

func applyRewrite(u string, rs []rewrite) string {
	if r, ok := longestRewrite(u, rs); ok {
		return r
	}
	return u
}

// longestRewrite rewrites u by the rewrite with the longest prefix that starts it.
func longestRewrite(u string, rs []rewrite) (string, bool) {
	best := -1
	for i, r := range rs {
		if strings.HasPrefix(u, r.prefix) && (best < 0 || len(r.prefix) > len(rs[best].prefix)) {
			best = i
		}
	}
	if best < 0 {
		return "", false
	}
	return rs[best].base + u[len(rs[best].prefix):], true
}
