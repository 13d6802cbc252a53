package settings

import (
	"fmt"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/segwi/segwi/migrate"
)

// RemoveRetired deletes the retired keys from the YAML settings file at path and keeps
// everything else as it is: the other keys, their order and spelling, and the comments (a
// comment above a deleted key moves to the key after it, or below the key before it when
// it was the last; a comment on the deleted key's own line goes with it). It finds the
// retired keys itself, in the file as it is now, and returns those it deleted. The file is
// replaced by a rename, as Save does. TOML and JSON files are not written: edit those by
// hand.
func RemoveRetired(path string) ([]migrate.Retired, error) {
	res, err := Load(path)
	if err != nil {
		return nil, fmt.Errorf("removing retired settings: %w", err)
	}
	if len(res.Retired) == 0 {
		return nil, nil
	}
	doc, mode, err := readYAMLDoc(path)
	if err != nil {
		return nil, fmt.Errorf("removing retired settings: %w", err)
	}
	for _, r := range res.Retired {
		if err := removeKey(doc.Content[0], r.Key); err != nil {
			return nil, fmt.Errorf("removing retired settings: %s: %s: %w", path, r.Key, err)
		}
	}
	if err := writeYAMLDoc(path, doc, mode); err != nil {
		return nil, fmt.Errorf("removing retired settings: %w", err)
	}
	return res.Retired, nil
}

// removeKey deletes the key at the path key (dotted, with [n] list indexes, as
// migrate.Retired.Key spells it) from the mapping root.
func removeKey(root *yaml.Node, key string) error {
	steps := strings.Split(key, ".")
	node := root
	for i, step := range steps {
		name, index, hasIndex := strings.Cut(step, "[")
		if node.Kind != yaml.MappingNode {
			return fmt.Errorf("%s is not a mapping", strings.Join(steps[:i], "."))
		}
		at := keyIndex(node, name)
		if at < 0 {
			return fmt.Errorf("not found")
		}
		if i == len(steps)-1 && !hasIndex {
			deletePair(node, at)
			return nil
		}
		node = node.Content[at+1]
		if hasIndex {
			n, err := strconv.Atoi(strings.TrimSuffix(index, "]"))
			if err != nil || node.Kind != yaml.SequenceNode || n < 0 || n >= len(node.Content) {
				return fmt.Errorf("%s[%s is not an entry of a list", name, index)
			}
			node = node.Content[n]
		}
	}
	return fmt.Errorf("names a list entry, not a key")
}

// keyIndex returns the position of key's key node in mapping m: the exact spelling first,
// then without case (as Load reads the file); -1 when it is not there.
func keyIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if strings.EqualFold(m.Content[i].Value, key) {
			return i
		}
	}
	return -1
}

// deletePair removes the key at position at of mapping m and its value, keeping the
// comments above and below them.
func deletePair(m *yaml.Node, at int) {
	k, v := m.Content[at], m.Content[at+1]
	kept := joinComments(k.HeadComment, v.HeadComment, k.FootComment, v.FootComment)
	m.Content = append(m.Content[:at], m.Content[at+2:]...)
	if kept == "" {
		return
	}
	if at < len(m.Content) {
		next := m.Content[at]
		next.HeadComment = joinComments(kept, next.HeadComment)
		return
	}
	if at > 0 {
		prev := m.Content[at-2]
		prev.FootComment = joinComments(prev.FootComment, kept)
		return
	}
	m.FootComment = joinComments(m.FootComment, kept)
}

// joinComments joins the non-empty comments, one per line.
func joinComments(comments ...string) string {
	var out []string
	for _, c := range comments {
		if c != "" {
			out = append(out, c)
		}
	}
	return strings.Join(out, "\n")
}
