package krm

import (
	"bytes"
	"io"

	"gopkg.in/yaml.v3"
)

// Result is one entry of the output's results (kyaml fn/framework
// Result): severity error, warning or info.
type Result struct {
	Message     string            `yaml:"message"`
	Severity    string            `yaml:"severity"`
	ResourceRef *ResourceRef      `yaml:"resourceRef,omitempty"`
	Field       *Field            `yaml:"field,omitempty"`
	File        *File             `yaml:"file,omitempty"`
	Tags        map[string]string `yaml:"tags,omitempty"`
}

// ResourceRef names the object a result is about.
type ResourceRef struct {
	APIVersion string `yaml:"apiVersion,omitempty"`
	Kind       string `yaml:"kind,omitempty"`
	Name       string `yaml:"name,omitempty"`
	Namespace  string `yaml:"namespace,omitempty"`
}

// Field is the path of the field a result is about.
type Field struct {
	Path string `yaml:"path"`
}

// File is the file a result is about, and the document's index in it.
type File struct {
	Path  string `yaml:"path"`
	Index int    `yaml:"index,omitempty"`
}

// Severities of a result.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Writer streams a ResourceList: items one at a time, then the results.
type Writer struct {
	w     io.Writer
	items bool
	err   error
}

// NewWriter starts a ResourceList of apiVersion (APIVersion when empty)
// on w.
func NewWriter(w io.Writer, apiVersion string) *Writer {
	if apiVersion == "" {
		apiVersion = APIVersion
	}
	wr := &Writer{w: w}
	wr.write([]byte("apiVersion: " + apiVersion + "\nkind: " + Kind + "\n"))
	return wr
}

func (w *Writer) write(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
	}
}

// WriteItems writes objects already encoded by AppendItem.
func (w *Writer) WriteItems(chunk []byte) error {
	if len(chunk) > 0 {
		if !w.items {
			w.items = true
			w.write([]byte("items:\n"))
		}
		w.write(chunk)
	}
	return w.err
}

// WriteItem writes an input item unchanged.
func (w *Writer) WriteItem(it *Item) error {
	doc, err := it.YAML()
	if err != nil {
		return err
	}
	return w.WriteItems(AppendItem(nil, doc))
}

// Close writes the results and ends the list.
func (w *Writer) Close(results []Result) error {
	if !w.items {
		w.write([]byte("items: []\n"))
	}
	if len(results) > 0 {
		var b bytes.Buffer
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(map[string][]Result{"results": results}); err != nil {
			return err
		}
		w.write(b.Bytes())
	}
	return w.err
}

// AppendItem appends one YAML document (a single object, without "---")
// as an entry of the items list: "- " before its first line, two spaces
// before the others. Block scalars keep their meaning, since every line
// moves by the same amount.
func AppendItem(dst, doc []byte) []byte {
	first := true
	for len(doc) > 0 {
		line := doc
		if i := bytes.IndexByte(doc, '\n'); i >= 0 {
			line, doc = doc[:i+1], doc[i+1:]
		} else {
			doc = nil
		}
		switch {
		case first:
			dst = append(dst, "- "...)
			first = false
		case len(line) > 1:
			dst = append(dst, "  "...)
		}
		dst = append(dst, line...)
	}
	if len(dst) > 0 && dst[len(dst)-1] != '\n' {
		dst = append(dst, '\n')
	}
	return dst
}
