package render

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
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
)

// errTemplateLimit marks a template stopped by a limit.
var errTemplateLimit = errors.New("template limit")

// parseTemplate parses an extra-manifest template with the bounded
// printing functions, and refuses ranges over a number it writes itself.
func parseTemplate(name, text string) (*template.Template, error) {
	t, err := template.New(name).Funcs(boundedFuncs).Parse(text)
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

// execute runs a template with a time limit. text/template cannot be
// interrupted, so a template that overruns is abandoned: its goroutine
// finishes on its own, and its output is discarded.
func execute(t *template.Template, out *limitedBuffer, data any) error {
	done := make(chan error, 1)
	var buf limitedBuffer
	buf.limit = out.limit
	go func() { done <- t.Execute(&buf, data) }()
	timer := time.NewTimer(templateTimeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return err
		}
		_, err = out.Write(buf.Bytes())
		return err
	case <-timer.C:
		return fmt.Errorf("%w: the template ran for more than %v", errTemplateLimit, templateTimeout)
	}
}
