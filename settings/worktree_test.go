package settings

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// A repository's worktree default and setup are read as written, and config check names
// each bad value: a glob that leaves the checkout, a command that is not text, a timeout
// without a unit.
func TestARepositorysWorktreeAndSetupAreChecked(t *testing.T) {
	dir := t.TempDir()
	res := load(t, writeConfig(t, "config.yaml", "segwi:\n  runs:\n    ports: 20\n  repositories:\n    - name: web\n      path: "+dir+
		"\n      worktree: true\n      setup:\n        copy: [.env, \"config/**/*.local.yaml\"]\n        run: npm ci\n        timeout: 5m\n"))
	if err := res.Err(); err != nil || len(res.Unknown) > 0 {
		t.Fatalf("problems %v, unknown keys %v", err, res.Unknown)
	}
	r := res.Settings.Repositories[0]
	if !r.Worktree || !slices.Equal(r.Setup.Copy, []string{".env", "config/**/*.local.yaml"}) || r.Setup.Run != "npm ci" || r.Setup.Timeout != 5*time.Minute {
		t.Errorf("repository = %+v", r)
	}
	if res.Settings.Runs.Ports != 20 || Default().Runs.Ports != 10 {
		t.Errorf("runs.ports = %d (default %d), want 20 (10)", res.Settings.Runs.Ports, Default().Runs.Ports)
	}
	if Default().Repositories != nil {
		t.Error("a repository works in a worktree by default")
	}

	res = load(t, writeConfig(t, "config.yaml", "segwi:\n  runs:\n    ports: 0\n  repositories:\n    - name: web\n      path: "+dir+
		"\n      worktree: sometimes\n      setup:\n        copy: [../secrets, /etc/passwd, .git/config, ok]\n        run: [npm, ci]\n        timeout: 300\n"))
	var got []string
	for _, p := range res.Problems {
		got = append(got, p.Key+": "+p.Message)
	}
	for _, want := range []string{
		"segwi.runs.ports: must be between 1 and 100, got 0",
		`segwi.repositories[0].worktree: must be true or false, got "sometimes"`,
		`segwi.repositories[0].setup.copy[0]: "../secrets" leaves the checkout`,
		`segwi.repositories[0].setup.copy[1]: "/etc/passwd" is not relative to the checkout`,
		`segwi.repositories[0].setup.copy[2]: ".git/config" reaches into .git`,
		"segwi.repositories[0].setup.run: must be a command",
		"segwi.repositories[0].setup.timeout: 300 is not a duration",
	} {
		if !strings.Contains(strings.Join(got, "\n"), want) {
			t.Errorf("the problems lack %q:\n%s", want, strings.Join(got, "\n"))
		}
	}
	if c := res.Settings.Repositories[0].Setup.Copy; !slices.Equal(c, []string{"ok"}) {
		t.Errorf("the copy list kept %q", c)
	}
}
