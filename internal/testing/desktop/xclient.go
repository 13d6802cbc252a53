//go:build linux && cgo

package desktop

/*
#cgo LDFLAGS: -lX11
#include <stdlib.h>
#include <X11/Xlib.h>

// xError is the code of the last X error closeWindow's display reported, or 0.
static int xError;

// keepXError keeps an X error's code rather than ending the process, as Xlib's default
// handler does: a test that names a wrong window then fails, and its cleanup still runs.
static int keepXError(Display *d, XErrorEvent *e) {
	xError = e->error_code;
	return 0;
}

// closeWindow asks the client of window w on the display named to close it, as a window
// manager's close button does: a WM_PROTOCOLS client message carrying WM_DELETE_WINDOW.
static int closeWindow(const char *display, unsigned long w) {
	Display *d = XOpenDisplay(display);
	if (d == NULL) return -1;
	xError = 0;
	XErrorHandler was = XSetErrorHandler(keepXError);
	XEvent ev = {0};
	ev.xclient.type = ClientMessage;
	ev.xclient.window = (Window)w;
	ev.xclient.message_type = XInternAtom(d, "WM_PROTOCOLS", False);
	ev.xclient.format = 32;
	ev.xclient.data.l[0] = XInternAtom(d, "WM_DELETE_WINDOW", False);
	ev.xclient.data.l[1] = CurrentTime;
	Status ok = XSendEvent(d, (Window)w, False, NoEventMask, &ev);
	XSync(d, False);
	XCloseDisplay(d);
	XSetErrorHandler(was);
	if (xError != 0) return -3;
	return ok ? 0 : -2;
}

// connectOnce opens the display and closes it again: 0, or -1 when it cannot be opened.
static int connectOnce(void) {
	Display *d = XOpenDisplay(NULL);
	if (d == NULL) return -1;
	XCloseDisplay(d);
	return 0;
}

// autoRepeat says whether the display named repeats a key held down: 1 or 0, or -1 when
// it cannot be opened.
static int autoRepeat(const char *display) {
	Display *d = XOpenDisplay(display);
	if (d == NULL) return -1;
	XKeyboardState s;
	XGetKeyboardControl(d, &s);
	XCloseDisplay(d);
	return s.global_auto_repeat == AutoRepeatModeOn;
}
*/
import "C"

import (
	"fmt"
	"strconv"
	"unsafe"
)

// CloseWindow asks the X client of the window id (decimal, as xdotool prints it) on the
// display named (":N") to close it, as a person's click on a window manager's close button
// does. The test display has no window manager, and xdotool can only destroy a window or
// kill its client. The display must be the window's: a window id of another display is an
// X error (BadWindow), returned.
func CloseWindow(display, id string) error {
	w, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		return fmt.Errorf("closing window %q: not a window id", id)
	}
	name := C.CString(display)
	defer C.free(unsafe.Pointer(name))
	switch C.closeWindow(name, C.ulong(w)) {
	case -1:
		return fmt.Errorf("closing window %s: cannot open the X display %s", id, display)
	case -2:
		return fmt.Errorf("closing window %s: the X server refused the event", id)
	case -3:
		return fmt.Errorf("closing window %s: the X server on %s reported an error (no such window there?)", id, display)
	}
	return nil
}

// ConnectOnce opens a connection to the display, as a starting window process does, and
// closes it again; it reports whether the display could be opened.
func ConnectOnce() bool { return C.connectOnce() == 0 }

// AutoRepeat says whether the display named (":N") repeats a key held down, as a desktop's
// keyboard does.
func AutoRepeat(display string) (bool, error) {
	name := C.CString(display)
	defer C.free(unsafe.Pointer(name))
	r := C.autoRepeat(name)
	if r < 0 {
		return false, fmt.Errorf("cannot open the X display %s", display)
	}
	return r == 1, nil
}
