package display

import (
	"runtime"
	"strings"
	"testing"
)

func TestCheckNamesTheMissingDisplay(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only X11 systems need DISPLAY")
	}
	t.Run("without DISPLAY the desktop cannot open, and the error says what to do", func(t *testing.T) {
		t.Setenv("DISPLAY", "")
		err := Check()
		if err == nil {
			t.Fatal("Check() = nil with no DISPLAY, want an error")
		}
		for _, want := range []string{"DISPLAY is not set", "scripts/run.sh", "segwi --help"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Check() = %q, want it to mention %q", err, want)
			}
		}
	})
	t.Run("with DISPLAY set the desktop may open", func(t *testing.T) {
		t.Setenv("DISPLAY", ":99")
		if err := Check(); err != nil {
			t.Errorf("Check() = %v with DISPLAY=:99, want nil", err)
		}
	})
}
