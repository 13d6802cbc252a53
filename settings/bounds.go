package settings

import (
	"bytes"
	"fmt"

	"github.com/pelletier/go-toml/v2/unstable"
	yaml "go.yaml.in/yaml/v3"
)

// Bounds on what a settings file may hold, far above what segwi's settings need (a few
// dozen keys and values, nested four deep), so that no file of at most MaxFileBytes takes
// long to read. The decoders are not linear in every shape: yaml.v3 compares each key of a
// mapping with every other one and keeps an error for each equal pair (1 MiB of one
// repeated key took minutes and 10 GB), go-toml looks up each key among its table's keys
// one by one (1 MiB of distinct keys took 40 s) and recurses once per nesting level (1
// MiB of "[" took a gigabyte of stack). So each file is measured before it is decoded.
const (
	maxValues = 10000 // keys and values (scalars, lists, mappings), aliases expanded
	maxDepth  = 64    // lists and mappings nested in each other
)

// boundsError is a file beyond the bounds; it is not a syntax error.
type boundsError struct{ msg string }

func (e *boundsError) Error() string { return e.msg }

var (
	errTooMany = &boundsError{fmt.Sprintf("holds more than %d keys and values, the most segwi reads: "+
		"segwi's settings take a few dozen, so check that this is your settings file", maxValues)}
	errTooDeep = &boundsError{fmt.Sprintf("nests lists and mappings more than %d deep, the most segwi reads: "+
		"segwi's settings nest 4 deep, so check that this is your settings file", maxDepth)}
)

// yamlBounds checks a YAML document's node tree, before it is decoded: its size with every
// alias expanded, its depth, and that no mapping repeats a key. It reports the first repeat
// the way yaml.v3 would, but without comparing every pair of keys.
type yamlBounds struct {
	sizes map[*yaml.Node]int // the expanded size of each node measured, for aliases
}

func checkYAML(doc *yaml.Node) error {
	b := yamlBounds{sizes: map[*yaml.Node]int{}}
	_, err := b.measure(doc, 0)
	return err
}

// measure returns how many values n expands to.
func (b *yamlBounds) measure(n *yaml.Node, depth int) (int, error) {
	if n.Kind == yaml.AliasNode {
		// An alias can only name an anchor met earlier in the document, which was measured.
		return b.sizes[n.Alias], nil
	}
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		if depth++; depth > maxDepth {
			return 0, errTooDeep
		}
	}
	if n.Kind == yaml.MappingNode {
		if err := uniqueKeys(n); err != nil {
			return 0, err
		}
	}
	size := 1
	if n.Kind == yaml.DocumentNode {
		size = 0
	}
	for _, c := range n.Content {
		s, err := b.measure(c, depth)
		if err != nil {
			return 0, err
		}
		if size += s; size > maxValues {
			return 0, errTooMany
		}
	}
	if n.Anchor != "" {
		b.sizes[n] = size
	}
	return size, nil
}

// uniqueKeys returns yaml.v3's error for the first key of mapping n written twice.
func uniqueKeys(n *yaml.Node) error {
	type key struct {
		kind  yaml.Kind
		value string
	}
	seen := make(map[key]*yaml.Node, len(n.Content)/2)
	for i := 0; i < len(n.Content); i += 2 {
		k := n.Content[i]
		if first, ok := seen[key{k.Kind, k.Value}]; ok {
			return fmt.Errorf("yaml: line %d: mapping key %q already defined at line %d", k.Line, k.Value, first.Line)
		}
		seen[key{k.Kind, k.Value}] = k
	}
	return nil
}

// checkTOML checks a TOML document's depth and size before it is decoded. It leaves
// syntax errors to the decoder, which words them better.
func checkTOML(data []byte) error {
	if tomlDepth(data) > maxDepth {
		return errTooDeep
	}
	var p unstable.Parser
	p.Reset(data)
	size := 0
	for p.NextExpression() {
		if size += tomlSize(p.Expression()); size > maxValues {
			return errTooMany
		}
	}
	return nil
}

// tomlSize counts the keys and values of one TOML expression (a key/value pair or a table
// header): every node of its tree but the pair itself.
func tomlSize(n *unstable.Node) int {
	size := 1
	if n.Kind == unstable.KeyValue {
		size = 0
	}
	for it := n.Children(); it.Next(); {
		size += tomlSize(it.Node())
	}
	return size
}

// tomlDepth returns how deeply a TOML document nests arrays, inline tables and table
// headers, read from its brackets outside strings and comments. It reads bytes and does
// not recurse, so it is safe on any input; on a document that is not TOML it may be wrong,
// and the decoder then reports the syntax error.
func tomlDepth(data []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '#':
			if end := bytes.IndexByte(data[i:], '\n'); end >= 0 {
				i += end
			} else {
				i = len(data)
			}
		case '"', '\'':
			i = tomlStringEnd(data, i)
		case '[', '{':
			depth++
			deepest = max(deepest, depth)
		case ']', '}':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

// tomlStringEnd returns the index of the last byte of the string starting at data[start]
// (a quote), or of the end of its line when it is not closed there (a one-line string).
func tomlStringEnd(data []byte, start int) int {
	q := data[start]
	escapes := q == '"'
	delim := []byte{q, q, q}
	if bytes.HasPrefix(data[start:], delim) { // multi-line
		for i := start + 3; i < len(data); i++ {
			switch {
			case escapes && data[i] == '\\':
				i++
			case bytes.HasPrefix(data[i:], delim):
				// Up to two more quotes may precede the closing three: """a""""" is a"".
				end := i + 2
				for end+1 < len(data) && data[end+1] == q && end < i+4 {
					end++
				}
				return end
			}
		}
		return len(data) - 1
	}
	for i := start + 1; i < len(data); i++ {
		switch {
		case escapes && data[i] == '\\':
			i++
		case data[i] == q || data[i] == '\n':
			return i
		}
	}
	return len(data) - 1
}

// treeSize counts the keys and values of a decoded tree, failing past the bounds.
func treeSize(v any, depth int) (int, error) {
	switch x := v.(type) {
	case map[string]any:
		if depth++; depth > maxDepth {
			return 0, errTooDeep
		}
		size := 1
		for _, e := range x {
			s, err := treeSize(e, depth)
			if err != nil {
				return 0, err
			}
			if size += 1 + s; size > maxValues {
				return 0, errTooMany
			}
		}
		return size, nil
	case []any:
		if depth++; depth > maxDepth {
			return 0, errTooDeep
		}
		size := 1
		for _, e := range x {
			s, err := treeSize(e, depth)
			if err != nil {
				return 0, err
			}
			if size += s; size > maxValues {
				return 0, errTooMany
			}
		}
		return size, nil
	default:
		return 1, nil
	}
}
