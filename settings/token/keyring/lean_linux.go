package keyring

import (
	"sync"

	"github.com/godbus/dbus/v5"
	gokeyring "github.com/zalando/go-keyring"
	ss "github.com/zalando/go-keyring/secret_service"
)

// leanReader reads an item from the Secret Service with three D-Bus calls where
// go-keyring's Get makes seven (the login collection looked up and unlocked, the item
// searched, a session opened, the item unlocked, its secret read, the session closed): it
// keeps one session for the process, and looks up the login collection as go-keyring
// does, searches it and reads. A run reads the token at its start, so in the tray that is
// every run's. It declines, and go-keyring answers as before, whenever its answer is not
// plainly go-keyring's: a locked collection or item (go-keyring unlocks it, prompting the
// person), and any error, after which it opens a session again.
type leanReader struct {
	mu      sync.Mutex
	svc     *ss.SecretService
	session dbus.BusObject
}

var lean leanReader

// get returns the secret of the item of service and user, or gokeyring.ErrNotFound; ok is
// false when it declined.
func (l *leanReader) get(service, user string) (secret string, ok bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.session == nil {
		svc, err := ss.NewSecretService()
		if err != nil {
			return "", false, nil
		}
		session, err := svc.OpenSession()
		if err != nil {
			return "", false, nil
		}
		l.svc, l.session = svc, session
	}
	collection := l.svc.GetLoginCollection() // each time: "login", else the default alias
	items, err := l.svc.SearchItems(collection, map[string]string{"username": user, "service": service})
	if err != nil {
		l.reset()
		return "", false, nil
	}
	if len(items) == 0 { // go-keyring's answer too, unless the collection is locked
		locked, err := collection.GetProperty("org.freedesktop.Secret.Collection.Locked")
		if err != nil {
			l.reset()
			return "", false, nil
		}
		if b, isBool := locked.Value().(bool); isBool && !b {
			return "", true, gokeyring.ErrNotFound
		}
		return "", false, nil
	}
	s, err := l.svc.GetSecret(items[0], l.session.Path()) // a locked item: IsLocked
	if err != nil {
		l.reset()
		return "", false, nil
	}
	return string(s.Value), true, nil
}

// reset closes the session, for the next get to open one again (the keyring may have
// restarted); l.mu is held.
func (l *leanReader) reset() {
	if l.session != nil {
		l.svc.Close(l.session)
	}
	l.svc, l.session = nil, nil
}
