package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Path returns the settings file to use: $SEGWI_CONFIG when set, else
// $XDG_CONFIG_HOME/segwi/config.yaml, where XDG_CONFIG_HOME defaults to ~/.config. A
// --config flag, handled by the command line, overrides both. The file need not exist.
func Path() (string, error) {
	if p := os.Getenv("SEGWI_CONFIG"); p != "" {
		return ExpandHome(p)
	}
	dir, err := xdgDir("XDG_CONFIG_HOME", ".config")
	if err != nil {
		return "", fmt.Errorf("finding the settings file: %w", err)
	}
	return filepath.Join(dir, "segwi", "config.yaml"), nil
}

// StateDir returns the directory for run folders and audit logs: $XDG_STATE_HOME/segwi,
// where XDG_STATE_HOME defaults to ~/.local/state. It need not exist yet.
func StateDir() (string, error) {
	dir, err := xdgDir("XDG_STATE_HOME", filepath.Join(".local", "state"))
	if err != nil {
		return "", fmt.Errorf("finding the state directory: %w", err)
	}
	return filepath.Join(dir, "segwi"), nil
}

// xdgDir returns $env when it holds an absolute path (the XDG spec says to ignore a
// relative one), else ~/fallback.
func xdgDir(env, fallback string) (string, error) {
	if d := os.Getenv(env); filepath.IsAbs(d) {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("%s is not set and there is no home directory: set HOME or %s", env, env)
	}
	return filepath.Join(home, fallback), nil
}

// ExpandHome replaces a leading "~" or "~/" in p with the home directory. Other paths,
// including "~user/...", are returned unchanged.
func ExpandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("expanding %s: no home directory: set HOME", p)
	}
	return filepath.Join(home, p[1:]), nil
}
