package render

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"
	"time"
)

// Extra-manifest templates come from the repository, which is not trusted,
// and run once per site and role. text/template cannot reach the file
// system or the network, but a template can still try to use memory or
// time without bound; these limits stop it.
const (
	// maxTemplateOutput bounds what one execution writes.
	maxTemplateOutput = 4 << 20
	// maxTemplateString bounds a string built by print, printf or println
	// (a string held in a variable is never written, so the output limit
	// does not see it).
	maxTemplateString = 1 << 20
	// maxFormatWidth bounds a printf width or precision ("%01000000d").
	maxFormatWidth = 10000
	// templateTimeout bounds one execution.
	templateTimeout = 5 * time.Second
	// maxTemplateSteps bounds the loop iterations and template calls of
	// one execution: nested ranges over the site's lists, or over an
	// integer field of the site (rootDeviceHints.minSizeGigabytes), would
	// otherwise run for years.
	maxTemplateSteps = 1_000_000
	// maxTemplateDepth bounds how deep template calls ({{template}}) nest:
	// text/template's own limit, 100,000 calls deep, takes gigabytes of
	// stack, and minutes to unwind.
	maxTemplateDepth = 100
)

// errTemplateLimit marks a template stopped by a limit.
var errTemplateLimit = errors.New("template limit")

// parseTemplate parses an extra-manifest template with the bounded
// printing functions, and refuses ranges over a number it writes itself.
func parseTemplate(name, text string) (*template.Template, error) {
	t, err := template.New(name).Funcs(boundedFuncs).Funcs((*loopBudget)(nil).funcs()).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("does not parse: %v", err)
	}
	vars := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, tt := range t.Templates() {
			if tt.Tree != nil && numberVars(tt.Tree.Root, vars) {
				changed = true
			}
		}
	}
	for _, tt := range t.Templates() {
		if tt.Tree == nil {
			continue
		}
		if err := checkRanges(tt.Tree.Root, vars); err != nil {
			return nil, err
		}
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			countLoops(tt.Tree.Root)
		}
	}
	return t, nil
}

// A range over an integer runs that many times, and text/template cannot
// be interrupted: "range 1000000000000" would run on after the time limit.
// The integers a template can reach are literals and data: data is bounded
// by the size of the site's files, literals are not. So a range is refused
// when its value may be a literal: a number, a variable assigned one, or
// "and"/"or" of one (they return an argument). Everything else (fields,
// len, index, slice of the data) ranges over the site's data.

// checkRanges refuses ranges whose value may be a number literal; vars are
// the variables that may hold one.
func checkRanges(n parse.Node, vars map[string]bool) error {
	var err error
	walkTemplate(n, func(n parse.Node) {
		if err != nil {
			return
		}
		switch n := n.(type) {
		case *parse.RangeNode:
			if mayBeLiteral(n.Pipe, vars) {
				err = fmt.Errorf("line %d: range over %s is not allowed: it may be a number the template writes itself; range over the site's data", n.Line, n.Pipe)
			}
		// Dot is data, or an element of it, unless "with" or a template
		// call makes it a literal: those are refused, so "range ." is safe.
		case *parse.WithNode:
			if mayBeLiteral(n.Pipe, vars) {
				err = fmt.Errorf("line %d: with %s is not allowed: it may be a number the template writes itself", n.Line, n.Pipe)
			}
		case *parse.TemplateNode:
			if n.Pipe != nil && mayBeLiteral(n.Pipe, vars) {
				err = fmt.Errorf("line %d: passing %s to template %q is not allowed: it may be a number the template writes itself", n.Line, n.Pipe, n.Name)
			}
		}
	})
	return err
}

// numberVars adds to vars the variables a pipeline that may be a number
// literal is assigned to, and reports whether it added any.
func numberVars(n parse.Node, vars map[string]bool) (added bool) {
	walkTemplate(n, func(n parse.Node) {
		var pipes []*parse.PipeNode
		switch n := n.(type) {
		case *parse.ActionNode:
			pipes = append(pipes, n.Pipe)
		case *parse.IfNode:
			pipes = append(pipes, n.Pipe)
		case *parse.WithNode:
			pipes = append(pipes, n.Pipe)
		case *parse.RangeNode:
			pipes = append(pipes, n.Pipe)
		}
		for _, p := range pipes {
			if p == nil || len(p.Decl) == 0 || !mayBeLiteral(p, vars) {
				continue
			}
			for _, v := range p.Decl {
				if name := v.Ident[0]; !vars[name] {
					vars[name], added = true, true
				}
			}
		}
	})
	return added
}

// mayBeLiteral reports whether the value of a node may be a number
// literal of the template.
func mayBeLiteral(n parse.Node, vars map[string]bool) bool {
	switch n := n.(type) {
	case *parse.NumberNode:
		return true
	case *parse.VariableNode:
		return len(n.Ident) == 1 && vars[n.Ident[0]]
	case *parse.PipeNode:
		return n != nil && len(n.Cmds) > 0 && mayBeLiteral(n.Cmds[len(n.Cmds)-1], vars)
	case *parse.CommandNode:
		if len(n.Args) == 1 {
			return mayBeLiteral(n.Args[0], vars)
		}
		if id, ok := n.Args[0].(*parse.IdentifierNode); ok && (id.Ident == "and" || id.Ident == "or") {
			for _, a := range n.Args[1:] {
				if mayBeLiteral(a, vars) {
					return true
				}
			}
		}
	}
	return false
}

// walkTemplate calls visit on every node of a template's tree that holds
// actions.
func walkTemplate(n parse.Node, visit func(parse.Node)) {
	if n == nil || reflect.ValueOf(n).IsNil() {
		return
	}
	visit(n)
	switch n := n.(type) {
	case *parse.ListNode:
		for _, c := range n.Nodes {
			walkTemplate(c, visit)
		}
	case *parse.IfNode:
		walkTemplate(n.List, visit)
		walkTemplate(n.ElseList, visit)
	case *parse.RangeNode:
		walkTemplate(n.List, visit)
		walkTemplate(n.ElseList, visit)
	case *parse.WithNode:
		walkTemplate(n.List, visit)
		walkTemplate(n.ElseList, visit)
	}
}

// boundedFuncs replace the printing built-ins with versions whose results
// are bounded.
var boundedFuncs = template.FuncMap{
	"print":   func(args ...any) (string, error) { return bounded(fmt.Sprint(args...)) },
	"println": func(args ...any) (string, error) { return bounded(fmt.Sprintln(args...)) },
	"printf": func(format string, args ...any) (string, error) {
		if err := checkFormat(format); err != nil {
			return "", err
		}
		return bounded(fmt.Sprintf(format, args...))
	},
}

func bounded(s string) (string, error) {
	if len(s) > maxTemplateString {
		return "", fmt.Errorf("%w: a printed string is over %d bytes", errTemplateLimit, maxTemplateString)
	}
	return s, nil
}

// checkFormat refuses printf widths and precisions that would allocate
// more than the string limit before it can be checked.
func checkFormat(format string) error {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		n := 0
		for i++; i < len(format) && strings.IndexByte("+-# 0123456789.*[]", format[i]) >= 0; i++ {
			c := format[i]
			switch {
			case '0' <= c && c <= '9':
				n = n*10 + int(c-'0')
				if n > maxFormatWidth {
					return fmt.Errorf("%w: printf width or precision over %d", errTemplateLimit, maxFormatWidth)
				}
			case c == '*':
				return fmt.Errorf("%w: printf * widths are not allowed", errTemplateLimit)
			default:
				n = 0
			}
		}
	}
	return nil
}

// limitedBuffer fails writes past its limit.
type limitedBuffer struct {
	bytes.Buffer
	limit int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.limit {
		return 0, fmt.Errorf("%w: template output is over %d bytes", errTemplateLimit, b.limit)
	}
	return b.Buffer.Write(p)
}

// execute runs a template within its limits: output (out's limit), the
// strings it prints, and a budget of steps and time that every loop
// iteration and template call draws on (countLoops). Nothing of it runs
// on after execute returns: it runs on the caller's goroutine, and the
// budget stops every loop.
func execute(t *template.Template, out *limitedBuffer, data any) error {
	b := &loopBudget{deadline: time.Now().Add(templateTimeout)}
	run, err := t.Clone()
	if err != nil {
		return err
	}
	run.Funcs(b.funcs())
	err = run.Execute(out, data)
	if b.err != nil {
		return b.err // a loop that stopped early left a partial result
	}
	return err
}

// Names of the functions countLoops inserts. A template that calls one
// itself only spends its own budget.
const (
	fnRange1 = "siteopsRange1"
	fnRange2 = "siteopsRange2"
	fnStep   = "siteopsStep"
	fnReturn = "siteopsReturn"
)

// countLoops makes every loop of a template's tree draw on the execution's
// budget: a range's value goes through fnRange1 (or fnRange2 when the
// range declares an index and an element), which iterates it one counted
// step at a time, and a template call's argument through fnStep, which
// also counts the depth of calls that fnReturn, at the end of every
// template, takes back.
func countLoops(root *parse.ListNode) {
	root.Nodes = append(root.Nodes, &parse.ActionNode{NodeType: parse.NodeAction, Pos: root.Pos,
		Pipe: &parse.PipeNode{NodeType: parse.NodePipe, Pos: root.Pos, Cmds: []*parse.CommandNode{command(root.Pos, fnReturn)}}})
	walkTemplate(root, func(n parse.Node) {
		switch n := n.(type) {
		case *parse.RangeNode:
			fn := fnRange1
			if len(n.Pipe.Decl) > 1 {
				fn = fnRange2
			}
			n.Pipe.Cmds = append(n.Pipe.Cmds, command(n.Pipe.Pos, fn))
		case *parse.TemplateNode:
			if n.Pipe == nil {
				n.Pipe = &parse.PipeNode{NodeType: parse.NodePipe, Pos: n.Pos, Line: n.Line}
			}
			n.Pipe.Cmds = append(n.Pipe.Cmds, command(n.Pipe.Pos, fnStep))
		}
	})
}

func command(pos parse.Pos, fn string) *parse.CommandNode {
	return &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{parse.NewIdentifier(fn).SetPos(pos)}}
}

// loopBudget is what one execution may still do.
type loopBudget struct {
	steps    int
	depth    int
	deadline time.Time
	err      error
}

// step takes one step; false once the budget is spent.
func (b *loopBudget) step() bool {
	if b.err != nil {
		return false
	}
	b.steps++
	switch {
	case b.steps > maxTemplateSteps:
		b.err = fmt.Errorf("%w: the template made more than %d loop iterations and template calls", errTemplateLimit, maxTemplateSteps)
	case b.steps%1024 == 0 && time.Now().After(b.deadline):
		b.err = fmt.Errorf("%w: the template ran for more than %v", errTemplateLimit, templateTimeout)
	}
	return b.err == nil
}

// funcs are the functions countLoops calls, bound to b. The nil budget's
// are those a template is parsed with: parsing needs the names only.
func (b *loopBudget) funcs() template.FuncMap {
	return template.FuncMap{
		fnRange1: func(v any) iter.Seq[any] {
			return func(yield func(any) bool) {
				rangeOver(v, func(_, e reflect.Value) bool { return b.step() && yield(e.Interface()) })
			}
		},
		fnRange2: func(v any) iter.Seq2[any, any] {
			return func(yield func(any, any) bool) {
				rangeOver(v, func(k, e reflect.Value) bool { return b.step() && yield(k.Interface(), e.Interface()) })
			}
		},
		fnReturn: func() string {
			b.depth--
			return ""
		},
		fnStep: func(args ...any) (any, error) {
			if b.depth++; b.depth > maxTemplateDepth && b.err == nil {
				b.err = fmt.Errorf("%w: template calls nest more than %d deep", errTemplateLimit, maxTemplateDepth)
			}
			if !b.step() {
				return nil, b.err
			}
			if len(args) == 0 {
				return nil, nil
			}
			return args[len(args)-1], nil
		},
	}
}

// rangeOver calls each with the index (or key) and element of what
// text/template can range over, in its order, until each returns false.
func rangeOver(v any, each func(k, e reflect.Value) bool) {
	val := reflect.ValueOf(v)
	for val.Kind() == reflect.Pointer || val.Kind() == reflect.Interface {
		if val.IsNil() {
			return
		}
		val = val.Elem()
	}
	switch val.Kind() {
	case reflect.Array, reflect.Slice, reflect.String:
		if val.Kind() == reflect.String {
			return // text/template refuses it; so does the nil case below
		}
		for i := 0; i < val.Len(); i++ {
			if !each(reflect.ValueOf(i), val.Index(i)) {
				return
			}
		}
	case reflect.Map:
		keys := val.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return compareKeys(a, b) })
		for _, k := range keys {
			if !each(k, val.MapIndex(k)) {
				return
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		for i := int64(0); i < val.Int(); i++ {
			if !each(reflect.Value{}, reflect.ValueOf(i).Convert(val.Type())) {
				return
			}
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		for i := uint64(0); i < val.Uint(); i++ {
			if !each(reflect.Value{}, reflect.ValueOf(i).Convert(val.Type())) {
				return
			}
		}
	}
}

// compareKeys orders map keys as text/template does for the kinds a site
// holds: numbers by value, strings and everything else by their text.
func compareKeys(a, b reflect.Value) int {
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(a.Int(), b.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return cmp.Compare(a.Uint(), b.Uint())
	case reflect.String:
		return strings.Compare(a.String(), b.String())
	}
	return strings.Compare(fmt.Sprint(a.Interface()), fmt.Sprint(b.Interface()))
}
