package app

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// autostartFile is the name of segwi's XDG autostart entry.
const autostartFile = ID + ".desktop"

// autostartPath returns $XDG_CONFIG_HOME/autostart/dev.segwi.segwi.desktop, where
// XDG_CONFIG_HOME defaults to ~/.config (a relative value is ignored, as the spec says).
func autostartPath() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", errors.New("finding the autostart folder: neither XDG_CONFIG_HOME nor HOME is set")
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "autostart", autostartFile), nil
}

// AutostartEnabled reports whether segwi starts at login: its XDG autostart entry exists
// and is not turned off (Hidden=true or X-GNOME-Autostart-enabled=false, as a desktop's
// startup-applications tool may write).
func AutostartEnabled() bool {
	p, err := autostartPath()
	if err != nil {
		return false
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if (k == "Hidden" && v == "true") || (k == "X-GNOME-Autostart-enabled" && v == "false") {
			return false
		}
	}
	return true
}

// SetAutostart makes segwi start at login, or stops it: it writes or removes segwi's XDG
// autostart entry, which runs this executable (by its absolute path) with no arguments,
// the tray app. Removing an entry that is not there is not an error.
func SetAutostart(enabled bool) error {
	p, err := autostartPath()
	if err != nil {
		return err
	}
	if !enabled {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("turning off start at login: %w", err)
		}
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("turning on start at login: finding segwi's executable: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("turning on start at login: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), "."+autostartFile+".*")
	if err != nil {
		return fmt.Errorf("turning on start at login: %w", err)
	}
	defer os.Remove(tmp.Name()) // gone after the rename
	if _, err := tmp.WriteString(autostartEntry(exe)); err != nil {
		tmp.Close()
		return fmt.Errorf("turning on start at login: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("turning on start at login: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("turning on start at login: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("turning on start at login: %w", err)
	}
	return nil
}

// autostartEntry is the desktop entry that starts the tray app at exe at login.
func autostartEntry(exe string) string {
	return "[Desktop Entry]\n" +
		"Type=Application\n" +
		"Name=segwi\n" +
		"Comment=Run Claude Code in your checkouts, with approvals only you can answer\n" +
		"Exec=" + execQuote(exe) + "\n" +
		"Icon=" + ID + "\n" +
		"Terminal=false\n" +
		"Categories=Development;\n" +
		"X-GNOME-Autostart-enabled=true\n"
}

// execQuote quotes a path for a desktop entry's Exec key: as is when it holds only safe
// characters, else in double quotes with ", `, $ and \ escaped by a backslash (desktop
// entry spec, "The Exec key"); a literal % is written %%.
func execQuote(p string) string {
	p = strings.ReplaceAll(p, "%", "%%")
	if !strings.ContainsAny(p, " \t\n\"'\\><~|&;$*?#()`=") {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range p {
		if strings.ContainsRune("\"`$\\", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	// In a desktop file's string values a backslash is itself escaped, so the quoting
	// backslashes above must be doubled in the file.
	return strings.ReplaceAll(b.String(), `\`, `\\`)
}
