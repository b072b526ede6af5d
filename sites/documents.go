package sites

import (
	"bytes"
	"io"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/siteops/siteops/internal/blockyaml"
)

// fastYAML lets documentReader use internal/blockyaml; tests turn it off
// to compare with yaml.v3 alone.
var fastYAML = true

// documentReader gives the YAML documents of a text one at a time: from
// internal/blockyaml when the text is in the block-style subset it reads
// (the node trees yaml.v3 builds, several times faster; most site files
// and extra manifests are), else from yaml.v3's Decoder, which then also
// words any syntax error.
//
// Its nodes come from a blockyaml.Parser taken from a pool: release gives
// them back once the caller has made what it keeps out of them (decoding
// copies every scalar into values of its own), and the next text is
// parsed into them.
type documentReader struct {
	parsed []*yaml.Node
	dec    *yaml.Decoder
	parser *blockyaml.Parser
}

var parsers = sync.Pool{New: func() any { return new(blockyaml.Parser) }}

func newDocumentReader(data []byte) *documentReader {
	if fastYAML {
		ps := parsers.Get().(*blockyaml.Parser)
		if docs, ok := ps.Parse(data); ok {
			return &documentReader{parsed: docs, parser: ps}
		}
		parsers.Put(ps)
	}
	return &documentReader{dec: yaml.NewDecoder(bytes.NewReader(data))}
}

// release ends the use of the reader's nodes: no node read from it may be
// used afterwards.
func (r *documentReader) release() {
	r.parsed = nil
	if r.parser != nil {
		parsers.Put(r.parser)
		r.parser = nil
	}
}

// next reads the next document into root, as yaml.Decoder.Decode does; it
// returns io.EOF after the last one.
func (r *documentReader) next(root *yaml.Node) error {
	if r.dec != nil {
		return r.dec.Decode(root)
	}
	if len(r.parsed) == 0 {
		return io.EOF
	}
	*root, r.parsed = *r.parsed[0], r.parsed[1:]
	return nil
}
