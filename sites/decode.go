package sites

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"gopkg.in/yaml.v3"
)

// maxNodeVisits bounds the work aliases may cause in one file. Aliases are
// followed while decoding, so a small file can name the same subtree
// millions of times (a "billion laughs" document); the budget, spent on
// every node reached through an alias, turns that into a problem instead of
// exhausting memory. Nodes written out in the file cost nothing: the file
// size limit bounds them. It is shared by all documents of a file.
const maxNodeVisits = 1 << 18

// maxDepth bounds nesting (a SiteConfig needs a few dozen levels): deep
// chains of aliases would otherwise cost memory quadratic in their depth.
const maxDepth = 1000

// abort stops decoding a document; its message becomes the one problem.
type abort struct{ msg string }

// nodeDecoder decodes a yaml.Node tree into Go values the way gopkg.in/yaml.v3
// would (the upstream generator's parser), while keeping the position of every
// field and reporting type mismatches and unknown fields as problems instead
// of stopping at the first one.
type nodeDecoder struct {
	file     string
	budget   *int
	depth    int
	problems Problems
	// pos records where each decoded field path starts.
	pos map[string]Position
	// expanding holds the anchors being expanded, to catch an anchor used
	// inside itself.
	expanding map[*yaml.Node]bool
	// genericBase is the path of the free-form subtree generic decodes,
	// and genericPath the steps from it to the node it is at.
	genericBase string
	genericPath []pathStep
	// yaml11 reads scalars as kubectl does (YAML 1.1: yes, no, on and off
	// are booleans) and types them as the API server does (a number is
	// not a string): kubectl and Argo CD read Kubernetes resources that
	// way, so a ClusterInstance reaches the hub so resolved, while the
	// SiteConfig generator's parser (yaml.v3) keeps those words strings and
	// takes any scalar's text for a string.
	yaml11 bool
}

// newNodeDecoder returns a decoder for one document; budget is shared by
// the documents of a file.
func newNodeDecoder(file string, budget *int) *nodeDecoder {
	pos := make(map[string]Position, positionsHint.get())
	return &nodeDecoder{file: file, budget: budget, pos: pos, expanding: map[*yaml.Node]bool{}}
}

// positionsHint sizes a document's positions map: a fleet's files are
// much alike, and a map grown to a few hundred positions was copied five
// times on the way.
var positionsHint sizeHint

// sizeHint is the smaller of the last two sizes recorded, at most
// maxSizeHint: one large document makes the maps of the small ones after
// it no larger (their maps are kept with their sites), and where large
// and small alternate the large ones grow their maps as before.
type sizeHint struct{ last atomic.Uint64 } // the last size, then the one before, 32 bits each

const maxSizeHint = 1024

func (h *sizeHint) get() int {
	v := h.last.Load()
	return int(min(v&math.MaxUint32, v>>32, maxSizeHint))
}

func (h *sizeHint) record(n int) {
	v := h.last.Load()
	h.last.Store((v&math.MaxUint32)<<32 | uint64(min(n, math.MaxUint32)))
}

func newBudget() *int {
	b := maxNodeVisits
	return &b
}

// record keeps where a field is, unless positions are not wanted.
func (d *nodeDecoder) record(path string, n *yaml.Node) {
	if d.pos != nil {
		d.pos[path] = d.position(n)
	}
}

func (d *nodeDecoder) position(n *yaml.Node) Position {
	return Position{File: d.file, Line: n.Line, Column: n.Column}
}

// maxProblems bounds the problems kept per document: past it, aliases or
// a generated file would only repeat the same message.
const maxProblems = 100

// Hints for values of the wrong shape.
const (
	hintList    = `write a list: one "- item" line per entry, or [a, b]`
	hintMapping = `write a mapping: indented "key: value" lines, or {key: value}`
)

// failHint is fail with a hint saying how to fix the value.
func (d *nodeDecoder) failHint(n *yaml.Node, field, hint, format string, args ...any) {
	before := len(d.problems)
	d.fail(n, field, format, args...)
	if len(d.problems) > before && d.problems[len(d.problems)-1].Field == field {
		d.problems[len(d.problems)-1].Hint = hint
	}
}

func (d *nodeDecoder) fail(n *yaml.Node, field, format string, args ...any) {
	if d.add() {
		return
	}
	d.problems = append(d.problems, Problem{
		Pos: d.position(n), Severity: SeverityError, Field: field,
		Message: fmt.Sprintf(format, args...),
	})
}

// decode decodes n into the value v points at. It returns false when the
// document had to be abandoned (alias bomb, alias cycle, nesting too deep);
// problems found on the way are collected in d.
func (d *nodeDecoder) decode(n *yaml.Node, v reflect.Value, path string) (ok bool) {
	var at *yaml.Node = n
	defer func() {
		if r := recover(); r != nil {
			a, isAbort := r.(abort)
			if !isAbort {
				panic(r)
			}
			d.problems = append(d.problems, Problem{Pos: d.position(at), Severity: SeverityError, Message: a.msg,
				Hint: "write the repeated part out, or remove the alias"})
			ok = false
		}
	}()
	d.value(n, v, path)
	if d.pos != nil {
		positionsHint.record(len(d.pos))
	}
	return true
}

// enter resolves aliases and accounts for one node. leave must be called
// with the anchors it returns when the node is done with.
func (d *nodeDecoder) enter(n *yaml.Node) (*yaml.Node, []*yaml.Node) {
	if len(d.expanding) > 0 {
		d.spend() // a node reached again through an alias
	}
	var anchors []*yaml.Node
	for n.Kind == yaml.AliasNode {
		target := n.Alias
		if d.expanding[target] {
			panic(abort{fmt.Sprintf("line %d: the anchor %q is used inside itself", n.Line, clip(n.Value))})
		}
		d.expanding[target] = true
		anchors = append(anchors, target)
		d.spend()
		n = target
	}
	d.depth++
	if d.depth > maxDepth {
		panic(abort{fmt.Sprintf("line %d: the document nests more than %d levels deep", n.Line, maxDepth)})
	}
	return n, anchors
}

// leave ends what enter started.
func (d *nodeDecoder) leave(anchors []*yaml.Node) {
	d.depth--
	for _, a := range anchors {
		delete(d.expanding, a)
	}
}

// visit resolves the aliases of a node that is not descended into (a key).
func (d *nodeDecoder) visit(n *yaml.Node) *yaml.Node {
	n, anchors := d.enter(n)
	d.leave(anchors)
	return n
}

func (d *nodeDecoder) spend() {
	*d.budget--
	if *d.budget < 0 {
		panic(abort{fmt.Sprintf("the file expands to more than %d YAML nodes through aliases (a YAML alias bomb?)", maxNodeVisits)})
	}
}

// pairs returns the key/value pairs of a mapping with YAML merge keys
// ("<<: *base") resolved as yaml.v3 resolves them: keys written in the
// mapping win over merged ones, and among merged mappings the first wins.
// path names the mapping in a merge key's problems: it is spelled out
// only for one, as the path of a node deep in a free-form subtree is
// (genericAt).
func (d *nodeDecoder) pairs(n *yaml.Node, path func() string) [][2]*yaml.Node {
	if !hasMergeKey(n) {
		// The mapping's own keys and values, alternating, are the pairs:
		// read in place rather than copied for every mapping decoded.
		return contentPairs(n.Content)
	}
	return d.mergedPairs(n, path)
}

// mergedPairs is pairs for a mapping with a "<<" key.
func (d *nodeDecoder) mergedPairs(n *yaml.Node, path func() string) [][2]*yaml.Node {
	var explicit, merged [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge" {
			merged = append(merged, d.mergeSources(v, path)...)
			continue
		}
		explicit = append(explicit, [2]*yaml.Node{k, v})
	}
	if len(merged) == 0 {
		return explicit
	}
	seen := map[string]bool{}
	for _, p := range explicit {
		seen[p[0].Value] = true
	}
	out := explicit
	for _, p := range merged {
		if !seen[p[0].Value] {
			seen[p[0].Value] = true
			out = append(out, p)
		}
	}
	return out
}

// contentPairs is content, a mapping's keys and values one after the
// other, seen as pairs without a copy; the caller must not append to it.
func contentPairs(content []*yaml.Node) [][2]*yaml.Node {
	if len(content) < 2 {
		return nil
	}
	return unsafe.Slice((*[2]*yaml.Node)(unsafe.Pointer(&content[0])), len(content)/2)
}

// mergeSources returns the pairs a merge key brings in: a mapping, or a
// list of mappings (earlier ones win).
func (d *nodeDecoder) mergeSources(v *yaml.Node, path func() string) [][2]*yaml.Node {
	v, anchors := d.enter(v)
	defer d.leave(anchors)
	switch v.Kind {
	case yaml.MappingNode:
		return d.pairs(v, path)
	case yaml.SequenceNode:
		var out [][2]*yaml.Node
		for _, e := range v.Content {
			e, anchorsE := d.enter(e)
			if e.Kind != yaml.MappingNode {
				d.fail(e, path(), "a merge key (<<) takes mappings, got %s", kindName(e))
			} else {
				out = append(out, d.pairs(e, path)...)
			}
			d.leave(anchorsE)
		}
		return out
	}
	d.fail(v, path(), "a merge key (<<) takes a mapping or a list of mappings, got %s", kindName(v))
	return nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		// The value itself is not repeated: the position points at it,
		// and a value in the wrong place may be a secret.
		switch n.ShortTag() {
		case "!!int", "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		}
		return "a string"
	}
	return "an unknown node"
}

// clip shortens a value quoted in a message: a message names the value,
// it does not reproduce it (and must not echo a secret pasted in the wrong
// field in full).
func clip(s string) string { return clipN(s, 40) }

// clipN is clip with a chosen length, for values such as paths that are
// only useful whole.
func clipN(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}

func (d *nodeDecoder) value(n *yaml.Node, v reflect.Value, path string) {
	n, anchors := d.enter(n)
	defer d.leave(anchors)
	if isNull(n) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.value(n, v.Elem(), path)
	case reflect.Struct:
		d.structValue(n, v, path)
	case reflect.Map:
		d.mapValue(n, v, path)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.failHint(n, path, hintList, "must be a list, got %s", kindName(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			ep := path + "[" + strconv.Itoa(i) + "]"
			d.record(ep, c)
			d.value(c, s.Index(i), ep)
		}
		v.Set(s)
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			d.failHint(n, path, "write a single value (a string) here, not a nested list or mapping", "must be a string, got %s", kindName(n))
			return
		}
		// kubectl sends an unquoted number or boolean as one, and the API
		// server refuses it for a string field; yaml.v3 takes its text.
		if d.yaml11 && d.scalarKind(n) != "a string" {
			d.failHint(n, path, "quote the value", "must be a string, got %s", d.scalarKind(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		b, ok := d.parseBool(n)
		if !ok {
			d.failHint(n, path, "write true or false, without quotes", "must be true or false, got %s", d.scalarKind(n))
			return
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64, reflect.Uint8:
		i, ok := parseInt(n)
		if tag := n.ShortTag(); tag != "!!int" && tag != "!!float" {
			ok = false // a quoted number is a string to both readers
		}
		if !ok || v.OverflowInt(i) && v.Kind() != reflect.Uint8 || v.Kind() == reflect.Uint8 && (i < 0 || i > math.MaxUint8) {
			d.failHint(n, path, "write a whole number, without quotes", "must be an integer, got %s", d.scalarKind(n))
			return
		}
		if v.Kind() == reflect.Uint8 {
			v.SetUint(uint64(i))
		} else {
			v.SetInt(i)
		}
	case reflect.Interface:
		d.genericBase, d.genericPath = path, d.genericPath[:0]
		v.Set(reflect.ValueOf(d.generic(n)))
	default:
		panic(fmt.Sprintf("sites: cannot decode into %s", v.Type()))
	}
}

func (d *nodeDecoder) structValue(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.failHint(n, path, hintMapping, "must be a mapping, got %s", kindName(n))
		return
	}
	if dft, ok := v.Addr().Interface().(interface{ setDefaults() }); ok {
		dft.setDefaults()
	}
	fields := fieldsOf(v.Type())
	pairs := d.pairs(n, func() string { return path })
	var seen firstKeys
	for _, kv := range pairs {
		k, val := d.visit(kv[0]), kv[1]
		key := k.Value
		fpath := joinPath(path, key)
		if prev := seen.find(key); prev != nil {
			d.fail(k, fpath, "defined twice (first at line %d); keep one", prev.Line)
			continue
		}
		seen.add(k)
		idx, known := fields.index[key]
		if !known {
			d.unknown(k, fpath, key, fields.names)
			continue
		}
		d.record(fpath, k)
		d.value(val, v.Field(idx), fpath)
	}
}

// firstKeys holds the first node of each key of a mapping, to find one
// written twice. A struct's mapping has a few keys: they are compared one
// by one, with no map made for each mapping, up to a count past which a
// map is quicker.
type firstKeys struct {
	few  [16]*yaml.Node
	n    int
	many map[string]*yaml.Node
}

func (f *firstKeys) find(key string) *yaml.Node {
	if f.many != nil {
		return f.many[key]
	}
	for _, k := range f.few[:f.n] {
		if k.Value == key {
			return k
		}
	}
	return nil
}

func (f *firstKeys) add(k *yaml.Node) {
	switch {
	case f.many != nil:
		f.many[k.Value] = k
	case f.n < len(f.few):
		f.few[f.n] = k
		f.n++
	default:
		f.many = make(map[string]*yaml.Node, 2*len(f.few))
		for _, k := range f.few {
			f.many[k.Value] = k
		}
		f.many[k.Value] = k
	}
}

// add makes room for one more problem, and reports whether the limit is
// reached (the last slot then says so).
func (d *nodeDecoder) add() (full bool) {
	switch {
	case len(d.problems) < maxProblems-1:
		return false
	case len(d.problems) == maxProblems-1:
		d.problems = append(d.problems, Problem{Pos: Position{File: d.file}, Severity: SeverityError,
			Message: fmt.Sprintf("more than %d problems in this document; fix these first", maxProblems-1)})
	}
	return true
}

func (d *nodeDecoder) unknown(k *yaml.Node, fpath, key string, names []string) {
	if d.add() {
		return
	}
	key = clip(key)
	p := Problem{Pos: d.position(k), Severity: SeverityWarning, Field: fpath,
		Message: fmt.Sprintf("unknown field %q is ignored", key)}
	if why, ok := ignoredFields[key]; ok {
		p.Message = fmt.Sprintf("field %q is ignored: %s", key, why)
	} else if s := suggest(key, names); s != "" {
		p.Hint = fmt.Sprintf("did you mean %q?", s)
	} else {
		p.Hint = "remove it, or check the spelling against the format's fields (docs/siteconfig.md, docs/clusterinstance.md)"
	}
	d.problems = append(d.problems, p)
}

func (d *nodeDecoder) mapValue(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.failHint(n, path, hintMapping, "must be a mapping, got %s", kindName(n))
		return
	}
	pairs := d.pairs(n, func() string { return path })
	m := reflect.MakeMapWithSize(v.Type(), len(pairs))
	keyType := v.Type().Key()
	// One element value serves every entry: SetMapIndex copies it.
	ev := reflect.New(v.Type().Elem()).Elem()
	for _, kv := range pairs {
		k := d.visit(kv[0])
		if k.Kind != yaml.ScalarNode {
			d.fail(k, path, "keys must be strings, got %s", kindName(k))
			continue
		}
		fpath := joinPath(path, k.Value)
		key := reflect.ValueOf(k.Value)
		if key.Type() != keyType {
			key = key.Convert(keyType)
		}
		if m.MapIndex(key).IsValid() {
			d.fail(k, fpath, "defined twice; keep one")
			continue
		}
		d.record(fpath, k)
		ev.SetZero()
		d.value(kv[1], ev, fpath)
		m.SetMapIndex(key, ev)
	}
	v.Set(m)
}

// generic decodes a free-form subtree (nmstate config, rootDeviceHints) into
// JSON-compatible values, resolving scalars as yaml.v3 does: 0644 is the
// octal integer 420, true is a boolean, "true" is a string.
func (d *nodeDecoder) generic(n *yaml.Node) any {
	n, anchors := d.enter(n)
	defer d.leave(anchors)
	switch n.Kind {
	case yaml.MappingNode:
		pairs := d.pairs(n, d.genericAt)
		m := make(map[string]any, len(pairs))
		for _, kv := range pairs {
			k := d.visit(kv[0])
			if k.Kind != yaml.ScalarNode {
				d.fail(k, d.genericAt(), "keys must be strings, got %s", kindName(k))
				continue
			}
			d.genericPath = append(d.genericPath, pathStep{key: k.Value, index: -1})
			if _, dup := m[k.Value]; dup {
				d.fail(k, d.genericAt(), "defined twice; keep one")
			} else {
				m[k.Value] = d.generic(kv[1])
			}
			d.genericPath = d.genericPath[:len(d.genericPath)-1]
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			d.genericPath = append(d.genericPath, pathStep{index: i})
			s[i] = d.generic(c)
			d.genericPath = d.genericPath[:len(d.genericPath)-1]
		}
		return s
	case yaml.ScalarNode:
		if d.yaml11 && n.ShortTag() == "!!str" && n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) == 0 {
			if b, ok := yaml11Bools[n.Value]; ok {
				return b
			}
		}
		return scalar(n)
	}
	return nil
}

// pathStep is one step down a free-form subtree: a mapping key, where
// index is -1, else a position in a sequence.
type pathStep struct {
	key   string
	index int
}

// genericAt is the path of the node generic is at, spelled out only for
// a problem: free-form subtrees (nmstate configs) are the deepest part
// of a site and seldom have one, and joining their paths as generic went
// down took a fifth of what decoding a site allocated.
func (d *nodeDecoder) genericAt() string {
	p := d.genericBase
	for _, s := range d.genericPath {
		if s.index >= 0 {
			p += "[" + strconv.Itoa(s.index) + "]"
		} else {
			p = joinPath(p, s.key)
		}
	}
	return p
}

// hasMergeKey reports whether a mapping has a "<<" key, which pairs
// resolves.
func hasMergeKey(n *yaml.Node) bool {
	for i := 0; i < len(n.Content); i += 2 {
		if n.Content[i].Value == "<<" {
			return true
		}
	}
	return false
}

// yaml11Bools are the YAML 1.1 booleans YAML 1.2 reads as strings.
var yaml11Bools = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "on": true, "On": true, "ON": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false, "off": false, "Off": false, "OFF": false,
}

// scalar resolves a scalar node to a JSON-compatible Go value.
func scalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		b, _ := parseBool(n)
		return b
	case "!!int":
		if i, ok := parseInt(n); ok {
			return i
		}
		if u, err := strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return u
		}
	case "!!float":
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	}
	return n.Value
}

// scalarKind names what a scalar is to the document's reader: yaml.v3
// for a SiteConfig, kubectl (YAML 1.1, where an unquoted yes is a boolean)
// for a ClusterInstance.
func (d *nodeDecoder) scalarKind(n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode {
		return kindName(n)
	}
	if _, ok := yaml11Bools[n.Value]; ok && d.yaml11 && n.ShortTag() == "!!str" && n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) == 0 {
		return "a boolean"
	}
	return kindName(n)
}

// parseBool reads a boolean field. yaml.v3 takes true and false unquoted,
// and the YAML 1.1 words (yes, no, on, off, y, n) quoted or not; kubectl
// takes both unquoted only.
func (d *nodeDecoder) parseBool(n *yaml.Node) (bool, bool) {
	if n.Kind != yaml.ScalarNode {
		return false, false
	}
	switch {
	case n.ShortTag() == "!!bool":
		return parseBool(n)
	case n.ShortTag() != "!!str":
		return false, false
	case d.yaml11 && n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0:
		return false, false
	}
	b, ok := yaml11Bools[n.Value]
	return b, ok
}

func parseBool(n *yaml.Node) (bool, bool) {
	if n.Kind != yaml.ScalarNode {
		return false, false
	}
	switch n.Value {
	case "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y":
		return true, true
	case "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N":
		return false, true
	}
	return false, false
}

func parseInt(n *yaml.Node) (int64, bool) {
	if n.Kind != yaml.ScalarNode {
		return 0, false
	}
	s := strings.ReplaceAll(n.Value, "_", "")
	if i, err := strconv.ParseInt(s, 0, 64); err == nil {
		return i, true
	}
	// yaml.v3 accepts a float with no fractional part for an integer field.
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f), true
	}
	return 0, false
}

func joinPath(path, key string) string {
	key = clip(key)
	if path == "" {
		return key
	}
	if strings.ContainsAny(key, ".[]") {
		return fmt.Sprintf("%s[%q]", path, key)
	}
	return path + "." + key
}

// structFields maps yaml keys to field indexes for one struct type.
type structFields struct {
	index map[string]int
	names []string
}

var fieldCache sync.Map // reflect.Type -> *structFields

func fieldsOf(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	f := &structFields{index: map[string]int{}}
	for i := 0; i < t.NumField(); i++ {
		tag := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
		if tag == "" || tag == "-" {
			continue
		}
		f.index[tag] = i
		f.names = append(f.names, tag)
	}
	sort.Strings(f.names)
	fieldCache.Store(t, f)
	return f
}
