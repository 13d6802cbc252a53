// Package display says whether segwi's desktop has a display to open on. It is a leaf both
// programs ask before they start: the tray process (which shows no window itself, but
// whose tray and windows need a desktop session) and the window process (where GLFW would
// panic without one).
package display

import (
	"errors"
	"os"
	"runtime"
)

// Check says why segwi's desktop cannot open when there is no X display for its windows
// (GLFW would panic instead); nil when there is one, or the system needs none.
func Check() error {
	switch runtime.GOOS {
	case "darwin", "windows", "ios", "android":
		return nil
	}
	if os.Getenv("DISPLAY") != "" {
		return nil
	}
	return errors.New("the tray app needs a desktop session, and there is no X display (DISPLAY is not set): " +
		"start segwi from your desktop, or use scripts/run.sh, which opens a headless one; " +
		"the commands (segwi --help) work without a display")
}
