package settings

import (
	"fmt"

	yaml "go.yaml.in/yaml/v3"
)

// Check validates a settings tree shaped like the file ({"segwi": {"runs": {"maxDuration":
// "2h"}}}) with exactly the rules Load applies, and returns what Load would have found in
// a file holding it: the settings (each bad value at its default), the unknown and retired
// keys, and the problems, naming file and each key. Values are given as a person would
// write them: durations as strings ("90s"), numbers as ints (or the text typed when it is
// not a number, which is reported), lists as []any, repositories as []any of
// map[string]any. It lets a settings window check what is being typed before anything is
// written. The error is non-nil only when the tree cannot be encoded.
func Check(file string, tree map[string]any) (*Result, error) {
	data, err := yaml.Marshal(tree)
	if err != nil {
		return nil, fmt.Errorf("checking settings: %w", err)
	}
	res := &Result{Settings: Default(), File: file, Found: true}
	if err := res.parse("yaml", data); err != nil {
		return nil, err
	}
	return res, nil
}
