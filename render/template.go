package render

import (
	"bytes"
	"errors"
	"fmt"
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
// printing functions, and refuses constructs that loop without bound.
func parseTemplate(name, text string) (*template.Template, error) {
	t, err := template.New(name).Funcs(boundedFuncs).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("does not parse: %v", err)
	}
	for _, tt := range t.Templates() {
		if tt.Tree == nil {
			continue
		}
		if err := checkRanges(tt.Tree.Root); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// checkRanges allows range only over data (a field, a variable's field, or
// dot): ranging over a number or over a function's result could loop for as
// long as the number says.
func checkRanges(n parse.Node) error {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := checkRanges(c); err != nil {
				return err
			}
		}
	case *parse.RangeNode:
		if !rangesOverData(n.Pipe) {
			return fmt.Errorf("line %d: range over %s is not allowed; range over fields of .Data", n.Line, n.Pipe)
		}
		if err := checkRanges(n.List); err != nil {
			return err
		}
		return checkRanges(n.ElseList)
	case *parse.IfNode:
		if err := checkRanges(n.List); err != nil {
			return err
		}
		return checkRanges(n.ElseList)
	case *parse.WithNode:
		if err := checkRanges(n.List); err != nil {
			return err
		}
		return checkRanges(n.ElseList)
	}
	return nil
}

func rangesOverData(p *parse.PipeNode) bool {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return false
	}
	switch a := p.Cmds[0].Args[0].(type) {
	case *parse.FieldNode, *parse.DotNode:
		return true
	case *parse.VariableNode:
		return len(a.Ident) > 1 // $x.Field, not a bare variable
	case *parse.ChainNode:
		_, field := a.Node.(*parse.FieldNode)
		return field
	}
	return false
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
