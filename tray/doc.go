// Package tray is segwi's tray icon and menu without Fyne: the StatusNotifierItem and its
// dbusmenu through fyne.io/systray (D-Bus on Linux, no cgo, no GL), and desktop
// notifications through org.freedesktop.Notifications. It is what the tray process, which
// runs all day, shows; the windows live in another process (see package control).
//
// What the tray shows is a pure function of a Snapshot: Menu, LookOf and Tooltip. Tray
// puts that on the desktop and turns menu clicks into calls of Actions; Follow keeps it up
// to date, waking only on a change or, while a run's elapsed time is shown, every
// RefreshEvery, so an idle tray costs no wakeups.
//
// This package must not import Fyne: a test checks that none of its dependencies is a
// fyne.io/fyne/v2 package.
package tray
