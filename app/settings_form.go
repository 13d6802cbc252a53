package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/settings"
)

// Keys of the settings window's fields, spelled as in DESIGN.md and as validation names them.
const (
	keyClaudePath       = "segwi.claude.path"
	keyClaudeModel      = "segwi.claude.model"
	keyRepositories     = "segwi.repositories"
	keyMaxConcurrent    = "segwi.runs.maxConcurrent"
	keyMaxDuration      = "segwi.runs.maxDuration"
	keyIdleTimeout      = "segwi.runs.idleTimeout"
	keyStopGrace        = "segwi.runs.stopGrace"
	keyPassForgeTokens  = "segwi.runs.passForgeTokens"
	keyApprovalsTimeout = "segwi.approvals.timeout"
	keyTrusted          = "segwi.approvals.trusted"
	keyGuardDeny        = "segwi.canary.guardDeny"
	keyAPIURL           = "segwi.github.apiURL"
	keyRemoteEnabled    = "segwi.remote.enabled"
	keyRemotePort       = "segwi.remote.port"
	keyRemoteOwners     = "segwi.remote.owners"
	keyRemoteSocket     = "segwi.remote.socket"
	keyTrailer          = "segwi.provenance.trailer"
	keyApprovalsListed  = "segwi.provenance.approvals"
)

// settingsForm holds the fields of the settings window that map to keys of the file, and
// checks them as they are typed with the rules settings.Load applies (settings.Check).
type settingsForm struct {
	file     string
	onChange func() // called after every edit, once the form is validated

	claudePath, claudeModel                        *widget.Entry
	maxConcurrent, maxDuration, idleTimeout, grace *widget.Entry
	passForgeTokens                                *widget.Check
	approvalsTimeout                               *widget.Entry
	trusted                                        *growingEntry
	guardDeny, apiURL                              *widget.Entry
	remoteEnabled                                  *widget.Check
	remotePort, remoteOwners, remoteSocket         *widget.Entry
	trailer, approvalsListed                       *widget.Check

	repos    []*repoRow
	reposBox *fyne.Container

	// errs holds the error line under each field, by key; other takes the problems no
	// field owns.
	errs  map[string]*fieldError
	other *widget.Label

	problems []settings.Problem // of the last validation
	checked  settings.Settings  // of the last validation; valid when problems is empty

	// runtimes are segwi.runtimes as they are in force, which the form does not edit: a
	// save keeps them, and so confirms no runtime that waits for the person.
	runtimes []settings.Runtime
}

// repoRow is one entry of segwi.repositories in the form.
type repoRow struct {
	name, path, remote          *widget.Entry
	nameErr, pathErr, remoteErr *fieldError
	rowErr                      *fieldError
	box                         *fyne.Container
}

// newSettingsErrorLabel returns the label that shows a field's problem, hidden while there is none.
func newSettingsErrorLabel() *widget.Label {
	l := widget.NewLabel("")
	l.Importance = widget.DangerImportance
	l.Wrapping = fyne.TextWrapWord
	l.Hide()
	return l
}

// setError shows lines under a field, or hides the label when there are none.
func showErrorLines(l *widget.Label, lines []string) {
	if len(lines) == 0 {
		l.SetText("")
		l.Hide()
		return
	}
	l.SetText(strings.Join(lines, "\n"))
	l.Show()
}

// newSettingsForm builds the fields, filled with cur.
func newSettingsForm(file string, cur settings.Settings) *settingsForm {
	f := &settingsForm{file: file, errs: map[string]*fieldError{}, other: newSettingsErrorLabel(), runtimes: cur.Runtimes}
	entry := func(key, text, placeholder string) *widget.Entry {
		e := widget.NewEntry()
		e.SetText(text)
		e.SetPlaceHolder(placeholder)
		e.OnChanged = func(string) { f.changed() }
		f.errs[key] = newFieldError()
		return e
	}
	f.claudePath = entry(keyClaudePath, cur.Claude.Path, "claude")
	f.claudeModel = entry(keyClaudeModel, cur.Claude.Model, "Claude Code's default")
	f.maxConcurrent = entry(keyMaxConcurrent, strconv.Itoa(cur.Runs.MaxConcurrent), "4")
	f.maxDuration = entry(keyMaxDuration, settings.FormatDuration(cur.Runs.MaxDuration), "2h")
	f.idleTimeout = entry(keyIdleTimeout, settings.FormatDuration(cur.Runs.IdleTimeout), "30m")
	f.grace = entry(keyStopGrace, settings.FormatDuration(cur.Runs.StopGrace), "10s")
	f.passForgeTokens = widget.NewCheck("Pass GH_TOKEN and GITHUB_TOKEN to runs", nil)
	f.passForgeTokens.SetChecked(cur.Runs.PassForgeTokens)
	f.passForgeTokens.OnChanged = func(bool) { f.changed() }
	f.errs[keyPassForgeTokens] = newFieldError()
	check := func(key, label string, on bool) *widget.Check {
		c := widget.NewCheck(label, nil)
		c.SetChecked(on)
		c.OnChanged = func(bool) { f.changed() }
		f.errs[key] = newFieldError()
		return c
	}
	f.trailer = check(keyTrailer, "End segwi's commits with a Segwi-Runs line naming the runs", cur.Provenance.Trailer)
	f.approvalsListed = check(keyApprovalsListed, "List what was allowed, and by whom, in a pull request's description", cur.Provenance.Approvals)
	f.approvalsTimeout = entry(keyApprovalsTimeout, settings.FormatDuration(cur.Approvals.Timeout), "10m")
	f.trusted = newGrowingEntry(4)
	f.trusted.SetText(strings.Join(cur.Approvals.Trusted, "\n"))
	f.trusted.grow()
	f.trusted.SetPlaceHolder("one command prefix a line, e.g. go test")
	f.trusted.OnChanged = func(string) {
		f.trusted.grow()
		f.changed()
	}
	f.errs[keyTrusted] = newFieldError()
	f.guardDeny = entry(keyGuardDeny, displayPath(cur.Canary.GuardDeny), "e.g. ~/.claude/guard.deny")
	f.apiURL = entry(keyAPIURL, cur.GitHub.APIURL, "https://api.github.com")
	f.errs[keyRepositories] = newHiddenFieldError("Repositories")
	f.remoteEnabled = widget.NewCheck("Serve the approval page on the tailnet", nil)
	f.remoteEnabled.SetChecked(cur.Remote.Enabled)
	f.remoteEnabled.OnChanged = func(bool) { f.changed() }
	f.errs[keyRemoteEnabled] = newFieldError()
	f.remotePort = entry(keyRemotePort, strconv.Itoa(cur.Remote.Port), strconv.Itoa(settings.DefaultRemotePort))
	f.remoteOwners = entry(keyRemoteOwners, strings.Join(cur.Remote.Owners, ", "), "e.g. alice@example.com, alice@github")
	f.errs[keyRemoteOwners].hint = "Tailnet logins, comma or space separated; empty: the owner of this machine's node."
	f.remoteSocket = entry(keyRemoteSocket, displayPath(cur.Remote.Socket), "e.g. /var/run/tailscale/tailscaled.sock")
	f.errs[keyRemoteSocket].hint = "tailscaled's LocalAPI socket; empty: tailscaled's default."

	f.reposBox = container.NewVBox()
	for _, r := range cur.Repositories {
		f.addRepo(r)
	}
	return f
}

// addRepo adds a repository entry to the form; it does not validate. A new entry
// (Add repository) is added quiet: its problems show once the person has typed in it.
func (f *settingsForm) addRepo(r settings.Repository) *repoRow {
	row := &repoRow{
		name: widget.NewEntry(), path: widget.NewEntry(), remote: widget.NewEntry(),
		nameErr: newFieldError(), pathErr: newFieldError(), remoteErr: newFieldError(), rowErr: newHiddenFieldError(""),
	}
	row.name.SetText(r.Name)
	row.name.SetPlaceHolder("e.g. web")
	row.path.SetText(displayPath(r.Path))
	row.path.SetPlaceHolder("the checkout's directory, e.g. ~/src/web")
	row.remote.SetText(r.Remote)
	row.remote.SetPlaceHolder(settings.DefaultRemote)
	speak := func(fe *fieldError) func(string) {
		return func(string) {
			fe.quiet = false
			row.rowErr.quiet = false
			f.changed()
		}
	}
	row.name.OnChanged = speak(row.nameErr)
	row.path.OnChanged = speak(row.pathErr)
	row.remote.OnChanged = speak(row.remoteErr)
	f.repos = append(f.repos, row)
	return row
}

// quiet keeps a new repository's problems unshown until the person types in its fields.
func (r *repoRow) quiet() {
	for _, fe := range []*fieldError{r.nameErr, r.pathErr, r.remoteErr, r.rowErr} {
		fe.quiet = true
	}
}

// pending reports how many of the last validation's problems are not shown yet, being in
// the quiet fields of a repository just added.
func (f *settingsForm) pending() int {
	n := 0
	for _, p := range f.problems {
		if fe := f.errorFor(p.Key); fe != nil && fe.quiet {
			n++
		}
	}
	return n
}

// removeRepo takes row out of the form.
func (f *settingsForm) removeRepo(row *repoRow) {
	for i, r := range f.repos {
		if r == row {
			f.repos = append(f.repos[:i], f.repos[i+1:]...)
			break
		}
	}
	f.reposBox.Remove(row.box)
	f.changed()
}

// apiURLValue is the GitHub API URL in the form, as typed; the default when it is empty, as
// loading the file would take it.
func (f *settingsForm) apiURLValue() string {
	if v := strings.TrimSpace(f.apiURL.Text); v != "" {
		return v
	}
	return settings.Default().GitHub.APIURL
}

// changed validates the form after an edit and tells the window.
func (f *settingsForm) changed() {
	f.validate()
	if f.onChange != nil {
		f.onChange()
	}
}

// tree returns the form's values shaped like the settings file, as typed.
func (f *settingsForm) tree() map[string]any {
	trim := func(e *widget.Entry) string { return strings.TrimSpace(e.Text) }
	// A whole number goes as one, for the loader to check its range; anything else as
	// typed, for the loader to say it is not a number.
	number := func(e *widget.Entry) any {
		if n, err := strconv.Atoi(trim(e)); err == nil {
			return n
		}
		return trim(e)
	}
	repos := []any{}
	for _, r := range f.repos {
		repos = append(repos, map[string]any{"name": trim(r.name), "path": trim(r.path), "remote": trim(r.remote)})
	}
	runtimes := []any{}
	for _, r := range f.runtimes {
		env := map[string]any{}
		for k, v := range r.Env {
			env[k] = v
		}
		runtimes = append(runtimes, map[string]any{"name": r.Name, "command": anyList(r.Command), "env": env})
	}
	return map[string]any{"segwi": map[string]any{
		"claude":       map[string]any{"path": trim(f.claudePath), "model": trim(f.claudeModel)},
		"runtimes":     runtimes,
		"repositories": repos,
		"runs": map[string]any{
			"maxConcurrent":   number(f.maxConcurrent),
			"maxDuration":     trim(f.maxDuration),
			"idleTimeout":     trim(f.idleTimeout),
			"stopGrace":       trim(f.grace),
			"passForgeTokens": f.passForgeTokens.Checked,
		},
		"approvals": map[string]any{"timeout": trim(f.approvalsTimeout), "trusted": anyList(f.trustedLines())},
		"canary":    map[string]any{"guardDeny": trim(f.guardDeny)},
		"github":    map[string]any{"apiURL": trim(f.apiURL)},
		"remote": map[string]any{
			"enabled": f.remoteEnabled.Checked,
			"port":    number(f.remotePort),
			"owners":  anyList(f.ownerNames()),
			"socket":  trim(f.remoteSocket),
		},
		"provenance": map[string]any{"trailer": f.trailer.Checked, "approvals": f.approvalsListed.Checked},
	}}
}

// values returns the form's values as typed, in one string: two are equal when the form
// says the same.
func (f *settingsForm) values() string { return fmt.Sprint(f.tree()) }

// trustedLines returns the trusted entries, one a line; blank lines are left out.
func (f *settingsForm) trustedLines() []string {
	var out []string
	for _, line := range strings.Split(f.trusted.Text, "\n") {
		if s := strings.TrimSpace(line); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// ownerNames returns the login names typed in Owners, separated by commas or spaces.
func (f *settingsForm) ownerNames() []string {
	return strings.FieldsFunc(f.remoteOwners.Text, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// validate checks the form with settings.Check, plus approvals.ParseTrusted for what
// makes a trusted entry a plain command prefix, and shows each problem under its field.
func (f *settingsForm) validate() {
	res, err := settings.Check(f.file, f.tree())
	if err != nil {
		f.problems = []settings.Problem{{File: f.file, Key: "segwi", Message: err.Error()}}
	} else {
		f.problems, f.checked = res.Problems, res.Settings
	}
	if !f.hasProblemUnder(keyTrusted) {
		for i, e := range f.trustedLines() {
			if _, err := approvals.ParseTrusted([]string{e}); err != nil {
				msg := strings.TrimPrefix(err.Error(), fmt.Sprintf("approvals.trusted[0] %q: ", e))
				f.problems = append(f.problems, settings.Problem{File: f.file,
					Key: fmt.Sprintf("%s[%d]", keyTrusted, i), Message: fmt.Sprintf("%q is %s", e, msg)})
			}
		}
	}
	f.show()
}

func (f *settingsForm) hasProblemUnder(key string) bool {
	for _, p := range f.problems {
		if p.Key == key || strings.HasPrefix(p.Key, key+"[") || strings.HasPrefix(p.Key, key+".") {
			return true
		}
	}
	return false
}

// show puts each problem of the last validation under its field, led by the field's
// label; a problem no field owns goes under the form with its key.
func (f *settingsForm) show() {
	under := map[*fieldError][]settings.Problem{}
	var other []string
	for _, p := range f.problems {
		if fe := f.errorFor(p.Key); fe != nil {
			under[fe] = append(under[fe], p)
		} else {
			other = append(other, p.Key+": "+p.Message)
		}
	}
	for _, fe := range f.allErrors() {
		fe.show(under[fe])
	}
	showErrorLines(f.other, other)
}

// allErrors returns the error line of every field.
func (f *settingsForm) allErrors() []*fieldError {
	all := []*fieldError{}
	for _, fe := range f.errs {
		all = append(all, fe)
	}
	for _, r := range f.repos {
		all = append(all, r.nameErr, r.pathErr, r.remoteErr, r.rowErr)
	}
	return all
}

// errorFor returns the error line that shows a problem with key; nil when no field owns it.
func (f *settingsForm) errorFor(key string) *fieldError {
	if fe, ok := f.errs[key]; ok {
		return fe
	}
	for _, list := range []string{keyTrusted, keyRemoteOwners} {
		if strings.HasPrefix(key, list+"[") {
			return f.errs[list]
		}
	}
	if rest, ok := strings.CutPrefix(key, keyRepositories+"["); ok {
		idx, field, _ := strings.Cut(rest, "]")
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 || i >= len(f.repos) {
			return f.errs[keyRepositories]
		}
		r := f.repos[i]
		switch field {
		case ".name":
			return r.nameErr
		case ".path":
			return r.pathErr
		case ".remote":
			return r.remoteErr
		}
		return r.rowErr
	}
	return nil
}

// valid reports whether the last validation found no problem.
func (f *settingsForm) valid() bool { return len(f.problems) == 0 }

// displayPath shows a path under the home directory as ~/..., as a person writes it.
func displayPath(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || p == "" || !filepath.IsAbs(p) {
		return p
	}
	if rel, err := filepath.Rel(home, p); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../") {
		return "~/" + filepath.ToSlash(rel)
	}
	return p
}
