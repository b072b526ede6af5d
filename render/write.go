package render

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/siteops/siteops/internal/redact"
)

// Format is an output format.
type Format string

const (
	// FormatYAML is a multi-document YAML stream, one "---" per object.
	FormatYAML Format = "yaml"
	// FormatJSON is one v1 List holding every object, as kubectl prints.
	FormatJSON Format = "json"
)

// Formats lists the output formats, for help texts.
func Formats() []Format { return []Format{FormatYAML, FormatJSON} }

// Encoder turns bundles into bytes of one format. Encode may be called
// from many goroutines; the pieces are then written in order between
// Header and Footer.
type Encoder interface {
	Header() []byte
	// Encode appends the bundle's objects. A JSON item is preceded by a
	// comma; StreamWriter drops the first one.
	Encode(dst []byte, b *Bundle) ([]byte, error)
	Footer() []byte
	Ext() string
}

// NewEncoder returns the encoder for a format.
func NewEncoder(f Format) (Encoder, error) {
	switch f {
	case FormatYAML:
		return yamlEncoder{}, nil
	case FormatJSON:
		return jsonEncoder{}, nil
	}
	return nil, fmt.Errorf("unknown output format %q (have %v)", f, Formats())
}

type yamlEncoder struct{}

func (yamlEncoder) Header() []byte { return nil }
func (yamlEncoder) Footer() []byte { return nil }
func (yamlEncoder) Ext() string    { return ".yaml" }

func (yamlEncoder) Encode(dst []byte, b *Bundle) ([]byte, error) {
	var err error
	for _, o := range b.Objects {
		dst = append(dst, "---\n"...)
		if dst, err = o.AppendYAML(dst); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// Redacting returns enc with the credentials of what it encodes hidden
// (redact.Bytes), which StreamWriter.Write would otherwise do while
// writing: RenderEncoded with it hides them on the worker goroutine, and
// StreamWriter.WriteResult does not scan its results again.
func Redacting(enc Encoder) Encoder {
	if _, ok := enc.(redactingEncoder); ok {
		return enc
	}
	return redactingEncoder{enc}
}

type redactingEncoder struct{ Encoder }

func (e redactingEncoder) Encode(dst []byte, b *Bundle) ([]byte, error) {
	start := len(dst)
	out, err := e.Encoder.Encode(dst, b)
	if err != nil {
		return nil, err
	}
	if len(out) > start {
		if hidden := redact.Bytes(out[start:]); &hidden[0] != &out[start] {
			out = append(out[:start], hidden...)
		}
	}
	return out, nil
}

type jsonEncoder struct{}

func (jsonEncoder) Header() []byte { return []byte(`{"apiVersion":"v1","kind":"List","items":[`) }
func (jsonEncoder) Footer() []byte { return []byte("\n]}\n") }
func (jsonEncoder) Ext() string    { return ".json" }

func (jsonEncoder) Encode(dst []byte, b *Bundle) ([]byte, error) {
	for _, o := range b.Objects {
		dst = append(dst, ",\n"...)
		raw, err := json.Marshal(o.Map())
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", o.Ref(), err)
		}
		dst = append(dst, raw...)
	}
	return dst, nil
}

// StreamWriter writes encoded bundles as one document: the header before
// the first, the footer at Close.
type StreamWriter struct {
	w       io.Writer
	enc     Encoder
	started bool
	items   bool
}

// NewStreamWriter returns a StreamWriter writing to w.
func NewStreamWriter(w io.Writer, enc Encoder) *StreamWriter {
	return &StreamWriter{w: w, enc: enc}
}

// Write writes one encoded bundle.
func (s *StreamWriter) Write(chunk []byte) error {
	// Objects copy site values as written: hide the credentials they may
	// hold (a private key pasted as the SSH key, a registered Secret's
	// value).
	return s.write(redact.Bytes(chunk))
}

// WriteResult writes the encoded bundle of a RenderEncoded result. Its
// credentials were hidden on the worker that rendered it; it is scanned
// again only if a value to hide was registered since (a Secret in a file
// decoded meanwhile).
func (s *StreamWriter) WriteResult(res Result) error {
	if !res.hidden() {
		return s.Write(res.Encoded)
	}
	return s.write(res.Encoded)
}

// write writes a chunk whose credentials are hidden.
func (s *StreamWriter) write(chunk []byte) error {
	if !s.started {
		s.started = true
		if _, err := s.w.Write(s.enc.Header()); err != nil {
			return err
		}
	}
	if len(chunk) == 0 {
		return nil
	}
	if !s.items && chunk[0] == ',' {
		chunk = chunk[1:]
	}
	s.items = true
	_, err := s.w.Write(chunk)
	return err
}

// Close finishes the document.
func (s *StreamWriter) Close() error {
	if err := s.Write(nil); err != nil {
		return err
	}
	_, err := s.w.Write(s.enc.Footer())
	return err
}

// WriteBundle writes one bundle as a complete document of the format.
func WriteBundle(w io.Writer, enc Encoder, b *Bundle) error {
	chunk, err := enc.Encode(nil, b)
	if err != nil {
		return err
	}
	sw := NewStreamWriter(w, enc)
	if err := sw.Write(chunk); err != nil {
		return err
	}
	return sw.Close()
}
