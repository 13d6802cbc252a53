package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// checkoutRetry is how often a run queued behind another segwi process's run in its
// checkout looks again: that process tells this one nothing when its run ends.
const checkoutRetry = time.Second

// errCheckoutBusy means another segwi process's build or ready run writes in the checkout.
var errCheckoutBusy = errors.New("another segwi's build or ready run is writing in this checkout")

// lockCheckout takes the lock that says a build or ready run writes in checkout. Every
// segwi process of the state folder (the tray app, each segwi run) takes it, so that two
// of them never write in one checkout at once; within one process the Manager's own map
// decides first. It does not wait: errCheckoutBusy means another process holds it. The
// lock is released when the file is closed, or when the process dies.
func lockCheckout(stateDir, checkout string) (*os.File, error) {
	dir := filepath.Join(stateDir, "checkouts")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("locking checkout %s: %w", checkout, err)
	}
	sum := sha256.Sum256([]byte(filepath.Clean(checkout)))
	f, err := os.OpenFile(filepath.Join(dir, hex.EncodeToString(sum[:16])+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("locking checkout %s: %w", checkout, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errCheckoutBusy
		}
		return nil, fmt.Errorf("locking checkout %s: %w", checkout, err)
	}
	return f, nil
}
