package approvals

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Limits on approvals.trusted, as the settings document them.
const (
	MaxTrusted      = 64   // entries in approvals.trusted
	MaxTrustedBytes = 1024 // bytes in one entry
)

// Trusted is the parsed form of approvals.trusted: command prefixes whose Bash calls are
// allowed without asking a person. The zero value trusts nothing.
type Trusted struct {
	rules []trustedRule
}

type trustedRule struct {
	text  string   // the entry as the person wrote it, for the record
	words []string // the entry split into shell words
}

// ParseTrusted parses approvals.trusted. Each entry must be a plain command prefix: one or
// more shell words (quoted or not) with no operators, expansions, redirections or other
// shell constructs. It returns an error naming the first entry that is not.
func ParseTrusted(entries []string) (Trusted, error) {
	if len(entries) > MaxTrusted {
		return Trusted{}, fmt.Errorf("approvals.trusted: %d entries, at most %d allowed", len(entries), MaxTrusted)
	}
	var t Trusted
	for i, entry := range entries {
		if len(entry) > MaxTrustedBytes {
			return Trusted{}, fmt.Errorf("approvals.trusted[%d]: %d bytes, at most %d allowed", i, len(entry), MaxTrustedBytes)
		}
		cmds, ok := plainScript(entry)
		if !ok || len(cmds) != 1 {
			return Trusted{}, fmt.Errorf("approvals.trusted[%d] %q: not a plain command prefix (words only: no operators, $, backquotes, redirections or globs)", i, entry)
		}
		t.rules = append(t.rules, trustedRule{text: strings.TrimSpace(entry), words: cmds[0]})
	}
	return t, nil
}

// Entries returns the trusted entries as the person wrote them.
func (t Trusted) Entries() []string {
	out := make([]string, len(t.rules))
	for i, r := range t.rules {
		out[i] = r.text
	}
	return out
}

// Allows reports whether a call of toolName with input is allowed without asking a person,
// and names the rule that allowed it. Only Bash calls are ever allowed by rule.
func (t Trusted) Allows(toolName string, input json.RawMessage) (rule string, ok bool) {
	if toolName != "Bash" || len(t.rules) == 0 {
		return "", false
	}
	var bash struct {
		Command *string `json:"command"`
	}
	if err := json.Unmarshal(input, &bash); err != nil || bash.Command == nil {
		return "", false
	}
	return t.Match(*bash.Command)
}

// Match reports whether script is a plain script whose every command starts with a trusted
// entry (as whole words). rule names the matching entries: the longest match for each
// command, distinct, in order of first use, joined by ", ".
func (t Trusted) Match(script string) (rule string, ok bool) {
	if len(t.rules) == 0 {
		return "", false
	}
	cmds, ok := plainScript(script)
	if !ok || len(cmds) == 0 {
		return "", false
	}
	var used []string
	for _, words := range cmds {
		best := -1
		for i, r := range t.rules {
			if hasWordPrefix(words, r.words) && (best < 0 || len(r.words) > len(t.rules[best].words)) {
				best = i
			}
		}
		if best < 0 {
			return "", false
		}
		if text := t.rules[best].text; !slices.Contains(used, text) {
			used = append(used, text)
		}
	}
	return strings.Join(used, ", "), true
}

func hasWordPrefix(words, prefix []string) bool {
	return len(words) >= len(prefix) && slices.Equal(words[:len(prefix)], prefix)
}

// Bounds on the scripts the trusted commands are checked against. A Bash command beyond
// any of them is never allowed by rule: it goes to a person. They bound the work and the
// stack depth of the check, which would otherwise grow with the command: a pipeline of
// 340,000 commands once overflowed Go's stack, a fatal error that no recover catches.
const (
	MaxScriptBytes    = 16 << 10 // bytes in the command
	MaxScriptCommands = 256      // simple commands in it, joined by &&, ||, ;, | or newlines
	// MaxScriptBrackets bounds the ( and { in the command, quoted or not: outside quotes
	// each can open a construct that the shell parser reads by recursion.
	MaxScriptBrackets = 64
)

// errNotPlain marks a script with a construct that is not plain.
var errNotPlain = errors.New("not a plain script")

// plainScript parses script with a real shell parser and returns the words of each of its
// commands when it is a plain script: simple commands made of literal words (quoted or
// not), joined by &&, ||, ;, | or newlines. Anything else (any $ or backquote, a
// redirection, a subshell or block, a lone &, a comment, an assignment, a glob or brace,
// a compound command) makes it not plain, and so does a script beyond the bounds above.
func plainScript(script string) ([][]string, bool) {
	// No parameter, command or arithmetic expansion of any kind, even inside single quotes
	// where it would be literal: a person reads those.
	if strings.ContainsAny(script, "$`") {
		return nil, false
	}
	// Bounded before parsing: the parser reads nested constructs by recursion, one level
	// per bracket or keyword, so its depth is bounded by the brackets and the length.
	if len(script) > MaxScriptBytes || strings.Count(script, "(")+strings.Count(script, "{") > MaxScriptBrackets {
		return nil, false
	}
	parser := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash))
	file, err := parser.Parse(strings.NewReader(script), "")
	if err != nil {
		return nil, false
	}
	cmds, err := collect(file.Stmts)
	if err != nil {
		return nil, false
	}
	// collect accepted only simple commands joined by operators, at most
	// MaxScriptCommands of them: the walk below goes no deeper than that.
	if hasComment(file) {
		return nil, false
	}
	return cmds, true
}

func hasComment(file *syntax.File) bool {
	found := false
	syntax.Walk(file, func(node syntax.Node) bool {
		if _, ok := node.(*syntax.Comment); ok {
			found = true
		}
		return !found
	})
	return found
}

// collect returns the words of each simple command of stmts, in order, or errNotPlain
// when a statement is anything but simple commands joined by &&, || or |, or when there
// are more than MaxScriptCommands of them. It keeps the statements still to visit on a
// stack of its own rather than recursing, since a pipeline nests once per command.
func collect(stmts []*syntax.Stmt) ([][]string, error) {
	var cmds [][]string
	todo := slices.Clone(stmts)
	slices.Reverse(todo) // the next statement to visit is last
	for len(todo) > 0 {
		stmt := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if stmt == nil || stmt.Negated || stmt.Background || stmt.Coprocess || stmt.Disown ||
			len(stmt.Redirs) > 0 || len(stmt.Comments) > 0 {
			return nil, errNotPlain
		}
		switch cmd := stmt.Cmd.(type) {
		case *syntax.CallExpr:
			if len(cmd.Assigns) > 0 || len(cmd.Args) == 0 || len(cmds) == MaxScriptCommands {
				return nil, errNotPlain
			}
			words := make([]string, 0, len(cmd.Args))
			for _, w := range cmd.Args {
				v, ok := literalWord(w)
				if !ok {
					return nil, errNotPlain
				}
				words = append(words, v)
			}
			cmds = append(cmds, words)
		case *syntax.BinaryCmd:
			switch cmd.Op {
			case syntax.AndStmt, syntax.OrStmt, syntax.Pipe:
			default:
				return nil, errNotPlain // |& and anything else
			}
			todo = append(todo, cmd.Y, cmd.X)
		default:
			return nil, errNotPlain // subshells, blocks, if/for/while, functions, [[ ]], (( )), declare, ...
		}
	}
	return cmds, nil
}

// literalWord returns the value the shell gives word when the word is made only of
// literal text: unquoted characters with no special meaning, single-quoted strings and
// double-quoted strings without expansions or escapes.
func literalWord(word *syntax.Word) (string, bool) {
	var b strings.Builder
	for i, part := range word.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if !plainUnquoted(p.Value, i == 0) {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, inner := range p.Parts {
				lit, ok := inner.(*syntax.Lit)
				if !ok || strings.ContainsRune(lit.Value, '\\') {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false // expansions, process substitution, extended globs, ...
		}
	}
	return b.String(), true
}

// plainUnquoted reports whether unquoted text stands for itself: no backslash escapes,
// globs, brace expansion, or tilde expansion (at the start of a word or after = or :).
func plainUnquoted(text string, wordStart bool) bool {
	if strings.ContainsAny(text, "\\*?[]{}") {
		return false
	}
	for i := 0; i < len(text); i++ {
		if text[i] != '~' {
			continue
		}
		if (i == 0 && wordStart) || (i > 0 && (text[i-1] == '=' || text[i-1] == ':')) {
			return false
		}
	}
	return true
}
