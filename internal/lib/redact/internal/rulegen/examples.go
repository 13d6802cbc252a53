package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode"
)

// ruleExamples are a rule's examples from gitleaks' own tests: text it must find a secret
// in (tps), and text it must not (fps).
type ruleExamples struct {
	TPs []string `json:"tps,omitempty"`
	FPs []string `json:"fps,omitempty"`
	// Drawn holds, for a rule gitleaks has no examples of, strings drawn from its
	// expression: a sample each, for the table test.
	Drawn []string `json:"drawn,omitempty"`
}

// examples evaluates, for every rule function in gitleaks' generator (dir is
// cmd/generate/config), the true and false positives it validates the rule with.
//
// The generator is Go code: literal strings, helpers that fill a sample into templates
// (utils.GenerateSampleSecret(s)), and random secrets drawn from a regular expression
// (secrets.NewSecret). This evaluates that subset of Go without running gitleaks: strings,
// +, []string literals, append, fmt.Sprintf, the utils helpers (interpreted from their own
// source), and NewSecret, which it replaces with a deterministic draw seeded by the rule's
// id, so that the output is the same on every run. An example it cannot evaluate is left
// out. The examples of a rule bound to a file name (ValidateWithPaths) are taken without
// their paths.
func examples(dir string) (map[string]*ruleExamples, error) {
	utils, err := parseFiles(filepath.Join(dir, "utils"))
	if err != nil {
		return nil, err
	}
	rules, err := parseFiles(filepath.Join(dir, "rules"))
	if err != nil {
		return nil, err
	}
	ev := &evaluator{funcs: map[string]*ast.FuncDecl{}, globals: map[string]value{}}
	for _, f := range utils {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				ev.funcs[fd.Name.Name] = fd
			}
		}
	}
	for _, f := range rules { // package-level variables: lists of example keys
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok {
				ev.rng = rand.New(rand.NewPCG(1, 1))
				ev.declare(gd, ev.globals)
			}
		}
	}
	out := map[string]*ruleExamples{}
	for _, f := range rules {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			id := ruleID(fd)
			if id == "" {
				continue
			}
			h := fnv.New64a()
			h.Write([]byte(id))
			ev.rng = rand.New(rand.NewPCG(h.Sum64(), 1))
			tps, fps, ok := ev.function(fd)
			if !ok || len(tps)+len(fps) == 0 {
				continue
			}
			ex := out[id]
			if ex == nil {
				ex = &ruleExamples{}
				out[id] = ex
			}
			ex.TPs = append(ex.TPs, tps...)
			ex.FPs = append(ex.FPs, fps...)
		}
	}
	return out, nil
}

// parseFiles parses the Go files of dir, tests left out, in the order of their names.
func parseFiles(dir string) ([]*ast.File, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			return nil, fmt.Errorf("rulegen: parsing %s: %v", name, err)
		}
		files = append(files, f)
	}
	return files, nil
}

// ruleID returns the RuleID set in fd's config.Rule literal, or "".
func ruleID(fd *ast.FuncDecl) string {
	id := ""
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok || id != "" {
			return id == ""
		}
		if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "RuleID" {
			if lit, ok := kv.Value.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				id, _ = strconv.Unquote(lit.Value)
			}
		}
		return true
	})
	return id
}

type evaluator struct {
	funcs   map[string]*ast.FuncDecl // gitleaks' utils package
	globals map[string]value         // the rules package's variables
	rng     *rand.Rand
}

// declare evaluates the variables gd declares into env.
func (ev *evaluator) declare(gd *ast.GenDecl, env map[string]value) {
	if gd.Tok != token.VAR {
		return
	}
	for _, sp := range gd.Specs {
		vs, ok := sp.(*ast.ValueSpec)
		if !ok || len(vs.Values) != len(vs.Names) {
			continue
		}
		for i, n := range vs.Names {
			if v, ok := ev.eval(vs.Values[i], env); ok {
				env[n.Name] = v
			}
		}
	}
}

// value is what an expression evaluates to: a string or a list of strings.
type value struct {
	s    string
	list []string
	many bool
}

// function evaluates fd's statements in order and returns the true and false positives
// it passes to utils.Validate.
func (ev *evaluator) function(fd *ast.FuncDecl) (tps, fps []string, ok bool) {
	env := map[string]value{}
	for k, v := range ev.globals {
		env[k] = v
	}
	for _, st := range fd.Body.List {
		switch st := st.(type) {
		case *ast.DeclStmt:
			if gd, ok := st.Decl.(*ast.GenDecl); ok {
				ev.declare(gd, env)
			}
		case *ast.AssignStmt:
			if len(st.Lhs) != 1 || len(st.Rhs) != 1 {
				continue
			}
			name, isIdent := st.Lhs[0].(*ast.Ident)
			if !isIdent {
				continue
			}
			if v, ok := ev.eval(st.Rhs[0], env); ok {
				env[name.Name] = v
			} else {
				delete(env, name.Name)
			}
		case *ast.ReturnStmt:
			if len(st.Results) != 1 {
				return nil, nil, false
			}
			call, isCall := st.Results[0].(*ast.CallExpr)
			if !isCall {
				return nil, nil, false
			}
			if name := calleeName(call); name != "utils.Validate" && name != "utils.ValidateWithPaths" || len(call.Args) != 3 {
				return nil, nil, false // a rule derived from another, or one with no examples
			}
			if v, ok := ev.eval(call.Args[1], env); ok {
				tps = v.strings()
			}
			if v, ok := ev.eval(call.Args[2], env); ok {
				fps = v.strings()
			}
			return tps, fps, true
		}
	}
	return nil, nil, false
}

func (v value) strings() []string {
	if v.many {
		return v.list
	}
	return []string{v.s}
}

func calleeName(call *ast.CallExpr) string {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			return x.Name + "." + f.Sel.Name
		}
	}
	return ""
}

func (ev *evaluator) eval(e ast.Expr, env map[string]value) (value, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return value{}, false
		}
		s, err := strconv.Unquote(e.Value)
		return value{s: s}, err == nil
	case *ast.ParenExpr:
		return ev.eval(e.X, env)
	case *ast.Ident:
		if e.Name == "nil" {
			return value{many: true}, true
		}
		v, ok := env[e.Name]
		return v, ok
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return value{}, false
		}
		x, ok1 := ev.eval(e.X, env)
		y, ok2 := ev.eval(e.Y, env)
		if !ok1 || !ok2 || x.many || y.many {
			return value{}, false
		}
		return value{s: x.s + y.s}, true
	case *ast.CompositeLit:
		// []string{...}, or map[string]string{path: text} (ValidateWithPaths): its texts.
		at, isArray := e.Type.(*ast.ArrayType)
		_, isMap := e.Type.(*ast.MapType)
		if !isMap && (!isArray || at.Len != nil) {
			return value{}, false
		}
		var list []string
		for _, el := range e.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok && isMap {
				el = kv.Value
			}
			if v, ok := ev.eval(el, env); ok && !v.many {
				list = append(list, v.s) // an element it cannot evaluate is left out
			}
		}
		return value{list: list, many: true}, true
	case *ast.CallExpr:
		return ev.call(e, env)
	}
	return value{}, false
}

func (ev *evaluator) call(c *ast.CallExpr, env map[string]value) (value, bool) {
	args := make([]value, len(c.Args))
	for i, a := range c.Args {
		v, ok := ev.eval(a, env)
		if !ok {
			return value{}, false
		}
		args[i] = v
	}
	name := calleeName(c)
	switch name {
	case "append":
		if len(args) == 0 || !args[0].many {
			return value{}, false
		}
		list := append([]string(nil), args[0].list...)
		for _, a := range args[1:] {
			list = append(list, a.strings()...)
		}
		return value{list: list, many: true}, true
	case "secrets.NewSecret":
		if len(args) != 1 || args[0].many {
			return value{}, false
		}
		s, ok := ev.draw(args[0].s)
		return value{s: s}, ok
	case "fmt.Sprintf":
		if len(args) == 0 || args[0].many {
			return value{}, false
		}
		rest := make([]any, len(args)-1)
		for i, a := range args[1:] {
			if a.many {
				return value{}, false
			}
			rest[i] = a.s
		}
		return value{s: fmt.Sprintf(args[0].s, rest...)}, true
	case "strings.ToUpper":
		if len(args) != 1 || args[0].many {
			return value{}, false
		}
		return value{s: strings.ToUpper(args[0].s)}, true
	case "utils.GenerateSampleSecrets":
		return ev.sampleSecrets(args)
	}
	fn, isUtil := strings.CutPrefix(name, "utils.")
	if !isUtil {
		return value{}, false
	}
	return ev.interpret(fn, args)
}

// interpret evaluates a utils function whose body is one return statement.
func (ev *evaluator) interpret(name string, args []value) (value, bool) {
	fd := ev.funcs[name]
	if fd == nil || len(fd.Body.List) != 1 {
		return value{}, false
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return value{}, false
	}
	env := map[string]value{}
	i := 0
	for _, f := range fd.Type.Params.List {
		for _, n := range f.Names {
			if i >= len(args) {
				return value{}, false
			}
			env[n.Name] = args[i]
			i++
		}
	}
	if i != len(args) {
		return value{}, false
	}
	return ev.eval(ret.Results[0], env)
}

// sampleSecrets does what utils.GenerateSampleSecrets does: it fills identifier and
// secret into each of the templates its samples map holds, taken from its own source, in
// the order of their names.
func (ev *evaluator) sampleSecrets(args []value) (value, bool) {
	fd := ev.funcs["GenerateSampleSecrets"]
	if fd == nil || len(args) != 2 || args[0].many || args[1].many {
		return value{}, false
	}
	templates := map[string]string{}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		k, ok1 := kv.Key.(*ast.BasicLit)
		v, ok2 := kv.Value.(*ast.BasicLit)
		if ok1 && ok2 {
			ks, err1 := strconv.Unquote(k.Value)
			vs, err2 := strconv.Unquote(v.Value)
			if err1 == nil && err2 == nil {
				templates[ks] = vs
			}
		}
		return true
	})
	if len(templates) == 0 {
		return value{}, false
	}
	r := strings.NewReplacer("{i}", args[0].s, "{I}", strings.ToUpper(args[0].s), "{s}", args[1].s)
	var list []string
	for _, k := range sortedKeys(templates) {
		list = append(list, r.Replace(templates[k]))
	}
	return value{list: list, many: true}, true
}

// draw returns a string that the regular expression expr matches, drawn with ev.rng.
func (ev *evaluator) draw(expr string) (string, bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	ok := ev.emit(&b, re.Simplify())
	return b.String(), ok
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func (ev *evaluator) emit(b *strings.Builder, re *syntax.Regexp) bool {
	repeat := func(min, max int) bool {
		if max < 0 {
			max = min + 8
		}
		n := min + ev.rng.IntN(max-min+1)
		for range n {
			if !ev.emit(b, re.Sub[0]) {
				return false
			}
		}
		return true
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		r, ok := ev.pick(re.Rune)
		if !ok {
			return false
		}
		b.WriteRune(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte(alnum[ev.rng.IntN(len(alnum))])
	case syntax.OpCapture:
		return ev.emit(b, re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !ev.emit(b, s) {
				return false
			}
		}
	case syntax.OpAlternate:
		return ev.emit(b, re.Sub[ev.rng.IntN(len(re.Sub))])
	case syntax.OpStar:
		return repeat(0, 8)
	case syntax.OpPlus:
		return repeat(1, 9)
	case syntax.OpQuest:
		return repeat(0, 1)
	case syntax.OpRepeat:
		return repeat(re.Min, re.Max)
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
	default:
		return false
	}
	return true
}

// pick draws a printable ASCII rune from the ranges of a character class, or any rune of
// it when it has no printable ASCII one.
func (ev *evaluator) pick(ranges []rune) (rune, bool) {
	var set []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := max(ranges[i], 0x21); r <= min(ranges[i+1], 0x7e); r++ {
			if unicode.IsPrint(r) {
				set = append(set, r)
			}
		}
	}
	if len(set) == 0 {
		if len(ranges) == 0 {
			return 0, false
		}
		return ranges[0], true
	}
	return set[ev.rng.IntN(len(set))], true
}
