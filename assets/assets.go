// Package assets holds segwi's embedded icons.
package assets

import _ "embed"

// Icon is the application icon (256x256 PNG), as FyneApp.toml names it.
//
//go:embed icon.png
var Icon []byte

// The tray icons: their look says segwi's state at a glance.
var (
	// TrayIdle is shown when no run is going.
	//
	//go:embed tray-idle.png
	TrayIdle []byte
	// TrayBusy is shown while runs are going and none waits for a person.
	//
	//go:embed tray-busy.png
	TrayBusy []byte
	// TrayWaiting is shown while a run waits for a person to answer an approval.
	//
	//go:embed tray-waiting.png
	TrayWaiting []byte
)
