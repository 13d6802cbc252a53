package settings

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	toml "github.com/pelletier/go-toml/v2"
	yaml "go.yaml.in/yaml/v3"
)

// largeSettings is a large settings file that is valid: every key set, 64 trusted
// commands of 1 KiB, 500 repositories and 2,000 keys of a newer segwi (about 7,600 keys
// and values in all, 160 KiB as YAML).
func largeSettings(dir string) map[string]any {
	trusted := make([]any, MaxTrusted)
	for i := range trusted {
		trusted[i] = fmt.Sprintf("tool%02d ", i) + strings.Repeat("x", MaxTrustedBytes-8)
	}
	repos := make([]any, 500)
	for i := range repos {
		repos[i] = map[string]any{"name": fmt.Sprintf("repo%d", i), "path": dir, "remote": "origin"}
	}
	future := map[string]any{}
	for i := range 2000 {
		future[fmt.Sprintf("key%d", i)] = i
	}
	return map[string]any{"segwi": map[string]any{
		"claude":       map[string]any{"path": "/usr/local/bin/claude", "model": "opus"},
		"repositories": repos,
		"runs":         map[string]any{"maxConcurrent": 8, "maxDuration": "3h", "idleTimeout": "20m", "stopGrace": "5s", "passForgeTokens": true},
		"approvals":    map[string]any{"timeout": "5m", "trusted": trusted},
		"github":       map[string]any{"apiURL": "https://api.github.com"},
		"future":       future,
	}}
}

func BenchmarkLoadALargeFile(b *testing.B) {
	dir := b.TempDir()
	doc := largeSettings(dir)
	for _, f := range []struct {
		name    string
		marshal func(any) ([]byte, error)
	}{{"config.yaml", yaml.Marshal}, {"config.toml", toml.Marshal}, {"config.json", json.Marshal}} {
		data, err := f.marshal(doc)
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				res, err := Load(path)
				if err != nil || res.Err() != nil || len(res.Settings.Repositories) != 500 {
					b.Fatalf("Load: %v %v", err, res.Err())
				}
			}
		})
	}
}
