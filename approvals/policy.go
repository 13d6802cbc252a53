package approvals

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

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
		cmds, err := plainScript(entry)
		if err != nil || len(cmds) != 1 {
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

// A Verdict is what the trusted commands make of one call.
type Verdict struct {
	Allowed bool
	Rule    string // the entries that allowed it, as Match names them
	// Unchecked says why the call could not be checked against the trusted commands at
	// all, for the person who is asked instead: a command beyond the bounds below, with a
	// control character, or an input that is not exactly the Bash tool's. It is empty when
	// the call was checked, and when no command is trusted.
	Unchecked string
}

// Check says whether a call of toolName with input is allowed without asking a person,
// and names the rule that allowed it. Only Bash calls are ever allowed by rule, and only
// when their input is exactly what Claude Code's Bash tool takes.
func (t Trusted) Check(toolName string, input json.RawMessage) Verdict {
	if toolName != "Bash" || len(t.rules) == 0 {
		return Verdict{}
	}
	command, err := bashCommand(input)
	if err != nil {
		return Verdict{Unchecked: "its input is not exactly what Claude Code's Bash tool takes: " + err.Error()}
	}
	return t.check(command)
}

// Match reports whether script is a plain script whose every command starts with a trusted
// entry (as whole words). rule names the matching entries: the longest match for each
// command, distinct, in order of first use, joined by ", ".
func (t Trusted) Match(script string) (rule string, ok bool) {
	v := t.check(script)
	return v.Rule, v.Allowed
}

func (t Trusted) check(script string) Verdict {
	if len(t.rules) == 0 {
		return Verdict{}
	}
	cmds, err := plainScript(script)
	var unchecked uncheckedError
	if errors.As(err, &unchecked) {
		return Verdict{Unchecked: string(unchecked)}
	}
	if err != nil || len(cmds) == 0 {
		return Verdict{}
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
			return Verdict{}
		}
		if text := t.rules[best].text; !slices.Contains(used, text) {
			used = append(used, text)
		}
	}
	return Verdict{Allowed: true, Rule: strings.Join(used, ", ")}
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

// uncheckedError says why a script is not checked at all, in words for the person asked.
type uncheckedError string

func (e uncheckedError) Error() string { return string(e) }

// plainScript parses script with a real shell parser and returns the words of each of its
// commands when it is a plain script: simple commands made of literal words (quoted or
// not), joined by &&, ||, ;, | or newlines. Anything else (any $ or backquote, a
// redirection, a subshell or block, a lone &, a comment, an assignment, a glob or brace,
// a compound command) makes it not plain (errNotPlain). A script that is not read before
// parsing at all (beyond the bounds above, with a control character) gives an
// uncheckedError saying why.
func plainScript(script string) ([][]string, error) {
	if err := screen(script); err != nil {
		return nil, err
	}
	// No parameter, command or arithmetic expansion of any kind, even inside single quotes
	// where it would be literal: a person reads those.
	if strings.ContainsAny(script, "$`") {
		return nil, errNotPlain
	}
	parser := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash))
	file, err := parser.Parse(strings.NewReader(script), "")
	if err != nil {
		return nil, errNotPlain
	}
	cmds, err := collect(file.Stmts)
	if err != nil {
		return nil, err
	}
	// collect accepted only simple commands joined by operators, at most
	// MaxScriptCommands of them: the walk below goes no deeper than that.
	if hasComment(file) {
		return nil, errNotPlain
	}
	return cmds, nil
}

// screen refuses, before any parsing, a script that the parser should not read: one
// beyond the bounds (the parser reads nested constructs by recursion, one level per
// bracket or keyword, so the bounds bound its depth), or one that bash would read
// otherwise than the parser. The parser takes a carriage return for a blank and drops a
// NUL, where bash keeps both; so no control character but tab and newline is let through.
func screen(script string) error {
	if len(script) > MaxScriptBytes {
		return uncheckedError(fmt.Sprintf("the command is %d bytes long, more than the %d segwi checks", len(script), MaxScriptBytes))
	}
	if !utf8.ValidString(script) {
		return uncheckedError("the command is not valid UTF-8")
	}
	if i := strings.IndexFunc(script, isUnsafeControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(script[i:])
		return uncheckedError(fmt.Sprintf("the command holds the control character %U at byte %d, which bash and segwi's shell parser read differently", r, i))
	}
	if n := strings.Count(script, "(") + strings.Count(script, "{"); n > MaxScriptBrackets {
		return uncheckedError(fmt.Sprintf("the command has %d brackets ( and {, more than the %d segwi checks", n, MaxScriptBrackets))
	}
	return nil
}

// isUnsafeControl reports whether r is a control character other than tab and newline.
func isUnsafeControl(r rune) bool {
	return unicode.IsControl(r) && r != '\t' && r != '\n'
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

// collect returns the words of each simple command of stmts, in order; errNotPlain when a
// statement is anything but simple commands joined by &&, || or |, and an uncheckedError
// when there are more than MaxScriptCommands of them. It keeps the statements still to visit on a
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
			if len(cmd.Assigns) > 0 || len(cmd.Args) == 0 {
				return nil, errNotPlain
			}
			if len(cmds) == MaxScriptCommands {
				return nil, uncheckedError(fmt.Sprintf("the command has more than the %d commands segwi checks", MaxScriptCommands))
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
