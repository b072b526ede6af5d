package blockyaml

import (
	"strings"
	"unsafe"

	"gopkg.in/yaml.v3"
)

// maxImplicitKey is the longest key libyaml reads before the ":" of a
// mapping entry.
const maxImplicitKey = 1024

// Parse returns the documents of data as yaml.v3's Decoder reads them, or
// false when data is not in the subset this package reads (doc.go).
func Parse(data []byte) (docs []*yaml.Node, ok bool) { return parse(data, nil) }

// A Parser parses texts one after the other into the nodes of the texts
// before: the documents a Parse returns are valid until the Parser's next
// Parse. A caller that turns each text's nodes into values of its own
// (a site's structs, a manifest's maps) before reading the next text
// saves their allocation, the largest of parsing. A Parser is not safe
// for concurrent use; its zero value is ready.
type Parser struct {
	slab []yaml.Node
	// lines is the buffer of the last text's lines, which no node
	// refers to once Parse returns.
	lines []line
}

// Parse is the package's Parse, into the nodes of the Parser's previous
// texts.
func (ps *Parser) Parse(data []byte) (docs []*yaml.Node, ok bool) { return parse(data, ps) }

func parse(data []byte, reuse *Parser) (docs []*yaml.Node, ok bool) {
	if !plainText(data) {
		return nil, false
	}
	// The text is read in place: every string a node keeps is a copy.
	p := parser{src: unsafe.String(unsafe.SliceData(data), len(data)), reuse: reuse}
	// The lines are pieces of data: a Parser keeping them would keep the
	// caller's text alive, and read it should the caller reuse it.
	defer func() { clear(p.all) }()
	defer func() {
		if r := recover(); r != nil {
			if _, is := r.(unsupported); !is {
				panic(r)
			}
			docs, ok = nil, false
		}
	}()
	p.split()
	for _, d := range p.docs {
		p.lines, p.i = d.lines, 0
		root := p.block(p.lines[0].indent)
		if p.i != len(p.lines) {
			p.fail()
		}
		doc := p.node(yaml.DocumentNode, "", "", d.line, d.column)
		doc.Content = []*yaml.Node{root}
		docs = append(docs, doc)
	}
	if len(docs) == 0 {
		return nil, false
	}
	return docs, true
}

// plainText reports whether data holds only printable ASCII, spaces and
// line feeds: no tab, carriage return or multi-byte character, whose
// columns and meaning are left to yaml.v3.
func plainText(data []byte) bool {
	for _, c := range data {
		if (c < 0x20 && c != '\n') || c >= 0x7f {
			return false
		}
	}
	return true
}

// unsupported stops parsing: the input is outside the subset.
type unsupported struct{}

type parser struct {
	src string
	// all is every content line of src, which docs' lines are cut from.
	all   []line
	docs  []document
	lines []line
	i     int // the next line of lines
	depth int // blocks being read
	// slab holds the nodes, allocated in blocks of slabSize: enough for
	// every document at once (slabFor).
	slab     []yaml.Node
	slabSize int
	// reuse, when not nil, lends its slab and keeps the largest one made.
	reuse *Parser
}

// document is the content lines of one document, and where yaml.v3 places
// its document node: at the "---" that starts it, or at its first content.
type document struct {
	lines        []line
	line, column int
}

// line is a line with content: its number (from 1), the column of its
// first character (from 0) and its text from there, trailing spaces
// removed.
type line struct {
	num    int
	indent int
	text   string
}

func (p *parser) fail() { panic(unsupported{}) }

// split cuts the source into documents of content lines, leaving out
// blank lines and comment lines.
func (p *parser) split() {
	var cur document
	explicit := false
	flush := func() {
		if len(cur.lines) == 0 {
			if explicit {
				p.fail() // an empty document: yaml.v3 gives a null one
			}
			return
		}
		if !explicit {
			cur.line, cur.column = cur.lines[0].num, cur.lines[0].indent+1
		}
		p.docs = append(p.docs, cur)
	}
	n := strings.Count(p.src, "\n") + 1
	if p.reuse != nil && cap(p.reuse.lines) >= n {
		p.all = p.reuse.lines[:0]
	} else {
		p.all = make([]line, 0, n)
		if p.reuse != nil && n <= maxKeptLines {
			p.reuse.lines = p.all
		}
	}
	start, entries := 0, 0
	for num, rest := 1, p.src; len(rest) > 0; num++ {
		text := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			text, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		indent := 0
		for indent < len(text) && text[indent] == ' ' {
			indent++
		}
		text = strings.TrimRight(text[indent:], " ")
		if text == "" || text[0] == '#' {
			continue
		}
		if indent == 0 && (strings.HasPrefix(text, "---") || strings.HasPrefix(text, "...")) {
			if text != "---" {
				p.fail()
			}
			cur.lines = p.all[start:len(p.all):len(p.all)]
			flush()
			cur, explicit, start = document{line: num, column: 1}, true, len(p.all)
			continue
		}
		p.all = append(p.all, line{num: num, indent: indent, text: text})
		if isEntry(text) {
			entries++
		}
	}
	cur.lines = p.all[start:len(p.all):len(p.all)]
	flush()
	p.slabSize = slabFor(len(p.all), entries, len(p.docs))
}

// slabFor is how many nodes documents of lines content lines, of which
// entries start a sequence entry ("- "), and docs documents make at most:
// a line makes a key and its value, or one scalar, and an entry line adds
// the mapping the entry holds ("- key: value" is three nodes; "- - a" is
// left to yaml.v3); a document adds itself and its root. A slab that size
// is never outgrown, so a Parser's texts all parse into the one it keeps.
func slabFor(lines, entries, docs int) int {
	return 2*lines + entries + 2*docs + 8
}

// maxKeptNodes bounds the slab a Parser keeps (about 2 MB), and
// maxKeptLines its buffer of lines (about 1 MB): a rare large text is not
// held for the texts after it.
const (
	maxKeptNodes = 1 << 14
	maxKeptLines = 1 << 15
)

// node returns a new node from the slab.
func (p *parser) node(kind yaml.Kind, tag, value string, line, column int) *yaml.Node {
	if len(p.slab) == cap(p.slab) {
		switch {
		case p.slab == nil && p.reuse != nil && cap(p.reuse.slab) >= p.slabSize:
			// Each node is written whole when it is taken, so what the
			// previous texts left in the slab is never read.
			p.slab = p.reuse.slab[:0]
		default:
			p.slab = make([]yaml.Node, 0, p.slabSize)
			if p.reuse != nil && cap(p.slab) > cap(p.reuse.slab) && cap(p.slab) <= maxKeptNodes {
				p.reuse.slab = p.slab[:0]
			}
		}
	}
	p.slab = append(p.slab, yaml.Node{Kind: kind, Tag: tag, Value: value, Line: line, Column: column})
	return &p.slab[len(p.slab)-1]
}

// maxDepth bounds the nesting Parse follows (a site file needs a few
// dozen levels); deeper documents are left to yaml.v3 and the decoder's
// own bound.
const maxDepth = 1000

// block reads the mapping or sequence whose first line is the next one,
// at column indent.
func (p *parser) block(indent int) *yaml.Node {
	if p.depth++; p.depth > maxDepth {
		p.fail()
	}
	defer func() { p.depth-- }()
	if isEntry(p.lines[p.i].text) {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

// isEntry reports whether a line's text is a sequence entry.
func isEntry(text string) bool {
	return text == "-" || strings.HasPrefix(text, "- ")
}

// next returns the next line, or one at column -1 past the end.
func (p *parser) next() line {
	if p.i < len(p.lines) {
		return p.lines[p.i]
	}
	return line{indent: -1}
}

// sequence reads the entries of a block sequence at column col.
func (p *parser) sequence(col int) *yaml.Node {
	first := p.lines[p.i]
	seq := p.node(yaml.SequenceNode, "!!seq", "", first.num, col+1)
	var items []*yaml.Node
	for p.i < len(p.lines) && p.lines[p.i].indent == col && isEntry(p.lines[p.i].text) {
		ln := p.lines[p.i]
		rest := ln.text[1:]
		k := len(rest) - len(strings.TrimLeft(rest, " "))
		content, ccol := rest[k:], col+1+k
		switch {
		case content == "" || content[0] == '#':
			p.i++
			items = append(items, p.emptyValue(col, ln.num, col+2, false))
		case isEntry(content):
			p.fail() // "- - a": a sequence on the dash line
		case hasKey(content):
			// A mapping that starts on the dash line: read the line as
			// if it began at the mapping's column.
			p.lines[p.i] = line{num: ln.num, indent: ccol, text: content}
			items = append(items, p.mapping(ccol))
		default:
			p.i++
			items = append(items, p.folded(p.scalar(content, ln.num, ccol), content, ln.num, col))
		}
	}
	if p.next().indent > col {
		p.fail()
	}
	seq.Content = items
	return seq
}

// mapping reads the entries of a block mapping at column col.
func (p *parser) mapping(col int) *yaml.Node {
	first := p.lines[p.i]
	m := p.node(yaml.MappingNode, "!!map", "", first.num, col+1)
	var pairs []*yaml.Node
	for p.i < len(p.lines) && p.lines[p.i].indent == col {
		ln := p.lines[p.i]
		key, rest, ok := splitKey(ln.text)
		if !ok {
			p.fail() // a sequence entry or a scalar among the keys
		}
		k := p.plain(key, ln.num, col)
		p.i++
		colon := col + len(key) // column of ':'
		value := strings.TrimLeft(rest, " ")
		var v *yaml.Node
		if value == "" || value[0] == '#' {
			v = p.emptyValue(col, ln.num, colon+2, true)
		} else {
			v = p.folded(p.scalar(value, ln.num, colon+1+len(rest)-len(value)), value, ln.num, col)
		}
		pairs = append(pairs, k, v)
	}
	if p.next().indent > col {
		p.fail()
	}
	m.Content = pairs
	return m
}

// emptyValue reads the value of a key or dash that has nothing after it on
// its line: a block on the lines below, more indented than col (or, for a
// key, a sequence at col), or else null, which yaml.v3 places right after
// the ':' or '-' (column).
func (p *parser) emptyValue(col, num, column int, key bool) *yaml.Node {
	next := p.next()
	switch {
	case next.indent > col:
		return p.block(next.indent)
	case key && next.indent == col && isEntry(next.text):
		return p.sequence(col)
	}
	return p.node(yaml.ScalarNode, "!!null", "", num, column)
}

// hasKey reports whether text is a mapping entry, "key: value" or "key:".
func hasKey(text string) bool {
	_, _, ok := splitKey(text)
	return ok
}

// splitKey cuts a mapping entry at the ':' that ends its key: the first
// one followed by a space or ending the line. The key must be a plain
// scalar on its own; rest starts after the ':'.
func splitKey(text string) (key, rest string, ok bool) {
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case ':':
			if i+1 < len(text) && text[i+1] != ' ' {
				continue
			}
			if i == 0 || text[i-1] == ' ' || i > maxImplicitKey {
				return "", "", false
			}
			return text[:i], text[i+1:], true
		case '#':
			if i > 0 && text[i-1] == ' ' {
				return "", "", false // a comment before any ':'
			}
		}
	}
	return "", "", false
}

// scalar reads a scalar value written at column col of line num: text
// runs to the end of the line, a comment included.
func (p *parser) scalar(text string, num, col int) *yaml.Node {
	switch text[0] {
	case '\'':
		var b strings.Builder
		i := 1
		for {
			j := strings.IndexByte(text[i:], '\'')
			if j < 0 {
				p.fail() // the string goes on to another line
			}
			b.WriteString(text[i : i+j])
			i += j + 1
			if i < len(text) && text[i] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			break
		}
		p.endOfLine(text[i:])
		n := p.node(yaml.ScalarNode, "!!str", b.String(), num, col+1)
		n.Style = yaml.SingleQuotedStyle
		return n
	case '"':
		j := strings.IndexAny(text[1:], `"\`)
		if j < 0 || text[1+j] == '\\' {
			p.fail() // an escape, or a string that goes on to another line
		}
		p.endOfLine(text[2+j:])
		n := p.node(yaml.ScalarNode, "!!str", strings.Clone(text[1:1+j]), num, col+1)
		n.Style = yaml.DoubleQuotedStyle
		return n
	}
	if i := strings.Index(text, " #"); i >= 0 {
		text = strings.TrimRight(text[:i], " ")
	}
	if strings.Contains(text, ": ") || strings.HasSuffix(text, ":") {
		p.fail() // a mapping where a scalar must be
	}
	return p.plain(text, num, col)
}

// folded returns n, the scalar written as text on line num, with the
// lines below it that continue it: those more indented than col, the
// column of its key or dash. A plain scalar's lines are folded into one
// value, each line break a space (YAML's line folding: yaml/v2, which
// kustomize writes with, folds long values at 80 columns). Anything else
// is left to yaml.v3: a quoted scalar continued, a comment, a blank or
// comment line between the lines, or a line that starts with an
// indicator or holds what could be a key.
func (p *parser) folded(n *yaml.Node, text string, num, col int) *yaml.Node {
	if p.next().indent <= col {
		return n
	}
	if n.Style != 0 || strings.Contains(text, " #") {
		p.fail()
	}
	var b strings.Builder
	b.WriteString(n.Value)
	for prev := num; p.i < len(p.lines) && p.lines[p.i].indent > col; p.i++ {
		ln := p.lines[p.i]
		t := ln.text
		if ln.num != prev+1 || strings.IndexByte(plainIndicators, t[0]) >= 0 ||
			strings.Contains(t, " #") || strings.Contains(t, ": ") || strings.HasSuffix(t, ":") {
			p.fail()
		}
		b.WriteByte(' ')
		b.WriteString(t)
		prev = ln.num
	}
	n.Value, n.Tag = b.String(), ""
	n.Tag = plainTag(n)
	return n
}

// plainIndicators are the characters that may not start a line of a
// plain scalar Parse folds (some may in YAML; those lines go to yaml.v3).
const plainIndicators = "-?:,[]{}#&*!|>'\"%@`."

// endOfLine checks what follows a quoted scalar: nothing, or a comment.
func (p *parser) endOfLine(rest string) {
	t := strings.TrimLeft(rest, " ")
	if t != "" && (t[0] != '#' || len(t) == len(rest)) {
		p.fail()
	}
}

// plain makes a plain scalar node of text, which has no comment and no
// trailing space.
func (p *parser) plain(text string, num, col int) *yaml.Node {
	switch text[0] {
	case '-', '.':
		// Negative numbers and "--flag" are plain; "- " and document
		// markers are not.
		if len(text) == 1 || text[1] == ' ' || strings.HasPrefix(text, "---") || strings.HasPrefix(text, "...") {
			p.fail()
		}
	case '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		p.fail() // an indicator
	}
	if text == "<<" {
		p.fail() // a merge key, which yaml.v3 tags apart
	}
	// A copy: a value kept after its document is read (a site's name in
	// a fleet index) must not keep the whole text alive.
	n := p.node(yaml.ScalarNode, "", strings.Clone(text), num, col+1)
	n.Tag = plainTag(n)
	return n
}

// plainTag is the tag yaml.v3 resolves a plain scalar to (Node.ShortTag).
// yaml.v3 looks further only at a text whose first byte its resolve table
// marks: a sign, a digit, '.', '~', or a letter of its table (which also
// marks y, n, o for the YAML 1.1 booleans it no longer reads); any other
// text is a string, said here without calling its resolver, which boxes
// the text it then throws away: most values of a site file are such
// strings.
func plainTag(n *yaml.Node) string {
	if n.Value != "" && !resolvedFirst[n.Value[0]] || notNumber(n.Value) {
		return "!!str"
	}
	return n.ShortTag()
}

// notNumber reports whether a text that starts with a digit is sure to
// resolve to a string: it is not a timestamp (which starts "YYYY-") and
// holds a byte no integer or float yaml.v3 reads may hold, or more than
// one '.'. Addresses ("10.16.231.0/24", "2620:52::1", "192.168.1.1")
// start with digits, and yaml.v3 tries each as an integer twice and as a
// float before it says string, building an error for each failure.
func notNumber(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	if len(s) > 4 && s[4] == '-' && strings.IndexFunc(s[:4], func(r rune) bool { return r < '0' || r > '9' }) < 0 {
		return false // may be a timestamp
	}
	dots := 0
	for i := range len(s) {
		switch c := s[i]; {
		case c == '.':
			if dots++; dots > 1 {
				return true
			}
		case !numberByte[c]:
			return true
		}
	}
	return false
}

// numberByte marks the bytes of the integers yaml.v3 reads (decimal, 0x,
// 0o and 0b forms, signs, underscores) and of its floats (digits, '.',
// exponents).
var numberByte = func() (t [256]bool) {
	for _, c := range "0123456789abcdefABCDEFxXoO_+-" {
		t[c] = true
	}
	return t
}()

// resolvedFirst marks the first bytes of the texts yaml.v3 resolves.
var resolvedFirst = func() (t [256]bool) {
	for _, c := range "+-0123456789.~yYnNtTfFoO" {
		t[c] = true
	}
	return t
}()
