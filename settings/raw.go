package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	yaml "go.yaml.in/yaml/v3"
)

// format returns the file's format (yaml, toml or json), from its extension.
func format(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".yaml", ".yml":
		return "yaml", nil
	case ".toml":
		return "toml", nil
	case ".json":
		return "json", nil
	default:
		return "", fmt.Errorf("%s: cannot tell the file's format from its extension %q: name it .yaml, .toml or .json", path, ext)
	}
}

// decodeRaw decodes the file as written, keeping the person's spelling of every key.
// Maps come back as map[string]any and lists as []any. An empty file is an empty map. A
// file beyond the bounds (see maxValues) is a *boundsError, found before it is decoded
// where decoding it could take long.
func decodeRaw(typ string, data []byte) (map[string]any, error) {
	var v any
	switch typ {
	case "yaml":
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, err
		}
		if err := checkYAML(&doc); err != nil {
			return nil, err
		}
		if err := doc.Decode(&v); err != nil {
			return nil, err
		}
	case "toml":
		if err := checkTOML(data); err != nil {
			return nil, err
		}
		m := map[string]any{}
		if err := toml.Unmarshal(data, &m); err != nil {
			return nil, err
		}
		v = m
	case "json":
		if len(bytes.TrimSpace(data)) == 0 {
			return map[string]any{}, nil
		}
		if err := json.Unmarshal(data, &v); err != nil {
			return nil, err
		}
		if _, err := treeSize(v, 0); err != nil {
			return nil, err
		}
	}
	if v == nil {
		return map[string]any{}, nil
	}
	m, ok := normalize(v).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the file must hold a mapping with a segwi section, not a %s", kind(v))
	}
	return m, nil
}

// normalize turns YAML's map[any]any (keys that are not all strings) into map[string]any,
// all the way down.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = normalize(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	default:
		return v
	}
}

// kind names a decoded value's type for a person.
func kind(v any) string {
	switch v.(type) {
	case map[string]any, map[any]any:
		return "mapping"
	case []any:
		return "list"
	case string:
		return "string"
	case bool:
		return "true/false value"
	case nil:
		return "empty value"
	default:
		return "number"
	}
}
