package tray

import (
	"errors"
	"os"
	"runtime"
)

// HaveDisplay says why segwi's desktop cannot open when there is no X display for its
// windows (GLFW would panic instead); nil when there is one, or the system needs none.
func HaveDisplay() error {
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
