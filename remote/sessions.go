package remote

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"sync"
	"time"

	"tailscale.com/tailcfg"
)

// Limits of the page's sessions.
const (
	sessionCookie = "segwi-session"
	maxSessions   = 64             // past this, the oldest session is forgotten
	sessionTTL    = 12 * time.Hour // then the page must be loaded again
)

// session is one load of the page on one device: a cookie names it, and every answer sent
// from it carries its anti-forgery token, which only the page itself can read.
type session struct {
	id      string
	token   string
	device  tailcfg.StableNodeID
	expires time.Time
}

// sessions holds the page's sessions. It is safe for concurrent use.
type sessions struct {
	now func() time.Time

	mu   sync.Mutex
	byID map[string]*session
}

func newSessions() *sessions {
	return &sessions{now: time.Now, byID: make(map[string]*session)}
}

// open starts a session for device d, forgetting the oldest when there are too many.
func (s *sessions) open(d tailcfg.StableNodeID) *session {
	ses := &session{id: randomHex(), token: randomHex(), device: d, expires: s.now().Add(sessionTTL)}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var oldest *session
	for id, o := range s.byID {
		if now.After(o.expires) {
			delete(s.byID, id)
		} else if oldest == nil || o.expires.Before(oldest.expires) {
			oldest = o
		}
	}
	if len(s.byID) >= maxSessions && oldest != nil {
		delete(s.byID, oldest.id)
	}
	s.byID[ses.id] = ses
	return ses
}

// check reports whether r carries a session of device d (its cookie) and that session's
// anti-forgery token (header X-Segwi-Token).
func (s *sessions) check(r *http.Request, d tailcfg.StableNodeID) bool {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return false
	}
	s.mu.Lock()
	ses := s.byID[c.Value]
	s.mu.Unlock()
	if ses == nil || ses.device != d || s.now().After(ses.expires) {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(r.Header.Get(tokenHeader)), []byte(ses.token)) == 1
}

// tokenHeader carries a session's anti-forgery token on each answer. A form or a plain
// link of another site cannot set a header; a script of another origin cannot read the
// page to learn the token.
const tokenHeader = "X-Segwi-Token"

// cookie is the session's cookie: only for this host and the page's own requests.
func (ses *session) cookie() *http.Cookie {
	return &http.Cookie{Name: sessionCookie, Value: ses.id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Expires: ses.expires}
}

func randomHex() string {
	var b [32]byte
	rand.Read(b[:]) //nolint:errcheck // crypto/rand.Read never fails (it panics instead)
	return hex.EncodeToString(b[:])
}
