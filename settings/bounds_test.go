package settings

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// repeat joins n copies of format, each given its index.
func repeat(n int, format, sep string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(format, i)
	}
	return strings.Join(parts, sep)
}

// aliasBomb is a small YAML file of a list of n scalars and a list of m aliases of it, which
// expands to n*m values. yaml.v3 refuses a file that is mostly aliases, but not this one.
func aliasBomb(n, m int) string {
	return "l0: &l0 [" + repeat(n, "x%d", ", ") + "]\nl1: [" + strings.TrimSuffix(strings.Repeat("*l0, ", m), ", ") + "]\n"
}

func TestLoadRefusesAFileThatWouldTakeLongToRead(t *testing.T) {
	tooMany := "holds more than 10000 keys and values, the most segwi reads: segwi's settings take a few dozen, so check that this is your settings file"
	tooDeep := "nests lists and mappings more than 64 deep, the most segwi reads: segwi's settings nest 4 deep, so check that this is your settings file"
	tests := []struct {
		name, file, body, want string
	}{
		// yaml.v3 compares every key of a mapping with every other one and keeps an error
		// for each equal pair: 200,000 repeats of one key (1 MiB) took minutes and 10 GB.
		{"a YAML key written over and over is refused at its first repeat", "config.yaml",
			strings.Repeat("a: 1\n", 1000),
			`config.yaml: yaml: line 2: mapping key "a" already defined at line 1: fix the YAML syntax`},
		{"YAML with too many keys", "config.yaml", repeat(6000, "k%d: 1", "\n"), "config.yaml: " + tooMany},
		{"YAML whose aliases expand to too many values", "config.yaml", aliasBomb(1000, 50), "config.yaml: " + tooMany},
		{"YAML nested too deeply", "config.yaml", "x: " + strings.Repeat("[", 65) + strings.Repeat("]", 65), "config.yaml: " + tooDeep},
		{"TOML with too many keys", "config.toml", repeat(6000, "k%d = 1", "\n"), "config.toml: " + tooMany},
		{"TOML with too many tables", "config.toml", repeat(6000, "[t%d]", "\n"), "config.toml: " + tooMany},
		// go-toml's parser recurses once per level: 1 MiB of "[" took a gigabyte of stack.
		{"TOML nested too deeply", "config.toml", "x = " + strings.Repeat("[", 65) + strings.Repeat("]", 65), "config.toml: " + tooDeep},
		{"JSON with too many keys", "config.json", "{" + repeat(6000, `"k%d": 1`, ",") + "}", "config.json: " + tooMany},
		{"JSON nested too deeply", "config.json", `{"x": ` + strings.Repeat("[", 65) + strings.Repeat("]", 65) + "}", "config.json: " + tooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadWithin(t, writeConfig(t, tt.file, tt.body), 10*time.Second)
			if err == nil || !strings.HasSuffix(err.Error(), tt.want) {
				t.Errorf("got error %v, want one ending in %q", err, tt.want)
			}
		})
	}

	within := []struct{ name, file, body string }{
		{"YAML", "config.yaml", "segwi:\n  claude: {model: opus}\n" + repeat(3000, "k%d: 1", "\n") + "\nx: " + strings.Repeat("[", 60) + strings.Repeat("]", 60)},
		{"TOML", "config.toml", "x = " + strings.Repeat("[", 60) + strings.Repeat("]", 60) + "\n" + repeat(3000, "k%d = 1", "\n") + "\n[segwi.claude]\nmodel = \"opus\"\n"},
		{"JSON", "config.json", `{"segwi": {"claude": {"model": "opus"}}, "x": ` + strings.Repeat("[", 60) + strings.Repeat("]", 60) + "," + repeat(3000, `"k%d": 1`, ",") + "}"},
	}
	for _, tt := range within {
		t.Run("a "+tt.name+" file within the bounds is read", func(t *testing.T) {
			res, err := loadWithin(t, writeConfig(t, tt.file, tt.body), 10*time.Second)
			if err != nil {
				t.Fatalf("got error %v, want the file read", err)
			}
			if res.Settings.Claude.Model != "opus" || len(res.Unknown) != 3001 {
				t.Errorf("got model %q and %d unknown keys, want opus and 3001", res.Settings.Claude.Model, len(res.Unknown))
			}
		})
	}
}

func TestTOMLDepthCountsOnlyBracketsOutsideStringsAndComments(t *testing.T) {
	tests := []struct {
		name, doc string
		want      int
	}{
		{"no brackets", "a = 1\n", 0},
		{"a table header", "[segwi.runs]\nmaxConcurrent = 2\n", 1},
		{"an array-of-tables header", "[[segwi.repositories]]\nname = \"web\"\n", 2},
		{"nested arrays", "x = [[1, [2]], 3]\n", 3},
		{"an inline table in an array", "x = [{a = [1]}]\n", 3},
		{"brackets in a basic string", `x = "[[[[" # ]` + "\n", 0},
		{"an escaped quote in a basic string", `x = "\"[[[" ` + "\n", 0},
		{"brackets in a literal string", `x = '[[[\' ` + "\n", 0},
		{"brackets in a comment", "# [[[[\nx = [1]\n", 1},
		{"brackets in a multi-line basic string", "x = \"\"\"\n[[[ \\\"\"\" ]\"\"\"\ny = [1]\n", 1},
		{"brackets in a multi-line literal string", "x = '''\n[[[ ''\n'''\ny = [[1]]\n", 2},
		{"a multi-line string ending in extra quotes", "x = \"\"\"a\"\"\"\"\"\ny = [1]\n", 1},
		{"brackets in a quoted key", "\"[[\" = 1\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tomlDepth([]byte(tt.doc)); got != tt.want {
				t.Errorf("tomlDepth(%q) = %d, want %d", tt.doc, got, tt.want)
			}
		})
	}
}
