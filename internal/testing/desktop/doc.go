// Package desktop checks the real tray app from the outside, as a person's desktop sees it:
// the built segwi binary under an X display (Xvfb) inside a session bus with a tray host,
// its tray menu read and clicked over D-Bus (com.canonical.dbusmenu), its windows typed
// into and clicked with xdotool, and a real run of the pinned Claude Code against the
// project's fake model server that asks for approvals, with the tray process and its
// window process told apart and measured. Screenshots of the windows and the measured
// figures (launch to tray item, resident memory, context switches, approval to popup) land
// in $SEGWI_SCREENSHOTS (default: a temp folder, named in the log) for a person to look at.
//
// scripts/test.sh provides the display, bus, tray host and keyring; outside it the test
// skips, or fails under SEGWI_TEST_STRICT=1.
package desktop
