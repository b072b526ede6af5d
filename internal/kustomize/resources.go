package kustomize

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
	"sigs.k8s.io/kustomize/api/resource"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// Resource files are parsed with kustomize's own resource factory, so that
// the fast paths see exactly the objects krusty would (multi-document
// files, List expansion, empty documents, validation), and their output is
// serialized the way krusty serializes it.

// chunk is one document of a YAML file, split the way kyaml splits them.
type chunk struct {
	text []byte
	line int // line of the chunk's first byte, 1-based
}

// docSeparator is kyaml's document separator (kio.ByteReader).
var docSeparator = regexp.MustCompile(`\n---.*\n`)

// splitChunks splits data into documents the way kyaml does.
func splitChunks(data []byte) []chunk {
	s := data
	if bytes.Contains(s, []byte("\r\n")) {
		s = bytes.ReplaceAll(s, []byte("\r\n"), []byte("\n"))
	}
	var out []chunk
	prev, line := 0, 1
	for _, loc := range docSeparator.FindAllIndex(s, -1) {
		out = append(out, chunk{text: s[prev:loc[0]], line: line})
		line += bytes.Count(s[prev:loc[1]], []byte("\n"))
		prev = loc[1]
	}
	return append(out, chunk{text: s[prev:], line: line})
}

// isFiller reports whether a line carries no content: blank, a comment, a
// document marker or a directive.
func isFiller(l string) bool {
	t := strings.TrimSpace(l)
	switch {
	case t == "", strings.HasPrefix(t, "#"), strings.HasPrefix(t, "%"), t == "...":
		return true
	case strings.HasPrefix(l, "---"):
		rest := strings.TrimSpace(l[3:])
		return rest == "" || strings.HasPrefix(rest, "#")
	}
	return false
}

// docLines returns the line of the first content line of each document
// of data that has one.
func docLines(data []byte) []int {
	var out []int
	for _, c := range splitChunks(data) {
		n := 0
		for l := range bytes.Lines(c.text) {
			if !isFiller(string(l)) {
				out = append(out, c.line+n)
				break
			}
			n++
		}
	}
	return out
}

// parsedFile is a resource file parsed the way kustomize parses it.
type parsedFile struct {
	path string
	docs []*parsedDoc
}

// parsedDoc is one object of a resource file.
type parsedDoc struct {
	file  string
	index int
	line  int
	// res is the object as read. It is shared and never changed.
	res *resource.Resource
	id  docID
	// yaml is the object as krusty outputs an object it did not change.
	yaml  []byte
	local bool

	once      sync.Once
	annotated []byte
	annErr    error
}

// docID identifies an object the way kustomize does for duplicates.
type docID struct {
	apiVersion, kind, namespace, name string
}

func idOf(r *resource.Resource) docID {
	return docID{r.GetApiVersion(), r.GetKind(), r.GetNamespace(), r.GetName()}
}

// dupKey treats the empty namespace as "default", as kustomize does.
func (id docID) dupKey() docID {
	if id.namespace == "" {
		id.namespace = "default"
	}
	return id
}

// localConfigAnnotation marks objects kustomize drops from its output
// (after they served as, say, the source of a replacement).
const localConfigAnnotation = "config.kubernetes.io/local-config"

func (b *builder) parseFile(p string) (*parsedFile, error) {
	return b.parsed.get(p, func(p string) (*parsedFile, error) {
		data, err := b.readFile(p)
		if err != nil {
			return nil, err
		}
		rs, err := b.sliceFromBytes(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		lines := docLines(data)
		pf := &parsedFile{path: p, docs: make([]*parsedDoc, len(rs))}
		for i, r := range rs {
			d := &parsedDoc{file: p, index: i, res: r, id: idOf(r)}
			// Line numbers are only trusted when documents and objects
			// pair up (no List was expanded).
			if len(lines) == len(rs) {
				d.line = lines[i]
			}
			if v, ok := r.GetAnnotations()[localConfigAnnotation]; ok && v != "false" {
				d.local = true
			}
			if d.yaml, err = outputYAML(r); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			pf.docs[i] = d
		}
		return pf, nil
	})
}

// outputYAML serializes an unchanged object as krusty does at the end of a
// build, which rewrites the annotations of every object while removing
// its own.
func outputYAML(r *resource.Resource) ([]byte, error) {
	return finalYAML(r.DeepCopy())
}

// finalYAML is outputYAML on an object no one reads afterwards: its
// annotations are removed in place.
func finalYAML(r *resource.Resource) ([]byte, error) {
	r.RemoveBuildAnnotations()
	if err := r.SetOrigin(nil); err != nil {
		return nil, err
	}
	if err := r.ClearTransformations(); err != nil {
		return nil, err
	}
	return krustyYAML(r)
}

// trackAnnotation carries a document's origin through a krusty build: its
// value is "index:file", the object's position in a resource file. It is
// removed from the output.
const trackAnnotation = "internal.siteops.io/origin"

// annotatedYAML is the object with its tracking annotation, as served to
// krusty.
func (d *parsedDoc) annotatedYAML() ([]byte, error) {
	d.once.Do(func() {
		c := d.res.DeepCopy()
		anns, err := c.Pipe(kyaml.LookupCreate(kyaml.MappingNode, kyaml.MetadataField, kyaml.AnnotationsField))
		if err == nil {
			err = anns.PipeE(kyaml.SetField(trackAnnotation, kyaml.NewStringRNode(strconv.Itoa(d.index)+":"+d.file)))
		}
		if err != nil {
			d.annErr = fmt.Errorf("%s: track origin: %w", d.file, err)
			return
		}
		s, err := c.RNode.String()
		if err != nil {
			d.annErr = fmt.Errorf("%s: track origin: %w", d.file, err)
			return
		}
		d.annotated = []byte(s)
	})
	return d.annotated, d.annErr
}

// joinAnnotated serves documents as one multi-document file.
func joinAnnotated(docs []*parsedDoc) ([]byte, error) {
	var buf bytes.Buffer
	for i, d := range docs {
		y, err := d.annotatedYAML()
		if err != nil {
			return nil, err
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.Write(y)
	}
	return buf.Bytes(), nil
}

func (pf *parsedFile) annotatedAll() ([]byte, error) { return joinAnnotated(pf.docs) }

// parseTrack splits a tracking annotation value.
func parseTrack(v string) (file string, index int, ok bool) {
	i, f, found := strings.Cut(v, ":")
	if !found {
		return "", 0, false
	}
	n, err := strconv.Atoi(i)
	if err != nil || n < 0 {
		return "", 0, false
	}
	return f, n, true
}

// maxExpandedNodes bounds what YAML aliases may expand to. kustomize
// expands every alias into a copy of its anchor while parsing, so a few
// nested aliases (a "billion laughs" file) would exhaust memory.
const maxExpandedNodes = 1 << 20

// checkAliases refuses YAML whose aliases expand past the limit. Files
// without a '*' have no aliases and cost a byte scan.
func checkAliases(name string, data []byte) error {
	if !bytes.Contains(data, []byte("*")) {
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	sizes := map[*yaml.Node]int64{}
	var total int64
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			// The end, or YAML the real parser will report.
			return nil
		}
		if total += expandedSize(&n, sizes); total > maxExpandedNodes {
			return fmt.Errorf("%s: YAML aliases expand to more than %d nodes", name, maxExpandedNodes)
		}
	}
}

// expandedSize counts the nodes of n with every alias expanded, capped
// just over the limit.
func expandedSize(n *yaml.Node, sizes map[*yaml.Node]int64) int64 {
	if n == nil {
		return 0
	}
	if s, ok := sizes[n]; ok {
		return s
	}
	sizes[n] = maxExpandedNodes + 1 // a node reached again while counting it
	var s int64 = 1
	if n.Kind == yaml.AliasNode {
		s = expandedSize(n.Alias, sizes)
	}
	for _, c := range n.Content {
		if s += expandedSize(c, sizes); s > maxExpandedNodes {
			s = maxExpandedNodes + 1
			break
		}
	}
	sizes[n] = s
	return s
}
