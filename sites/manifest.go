package sites

import (
	"errors"
	"fmt"
	"io"
	"reflect"

	"gopkg.in/yaml.v3"
)

// DecodeManifest reads the first YAML document of data as a mapping of
// JSON-compatible values, resolving scalars as the upstream generator's parser
// does (0644 is 420). Later documents are ignored, as upstream ignores them
// (getExtraManifestMaps in the generator's siteConfigBuilder.go). It is used
// for extra manifests, crTemplates and BIOS profiles; aliases are bounded as
// for site files.
func DecodeManifest(file string, data []byte) (map[string]any, error) {
	var out map[string]any
	if err := decodeFirst(file, data, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeFirst decodes the first document of data, which must be a
// mapping, into out.
func decodeFirst(file string, data []byte, out any) error {
	var root yaml.Node
	docs := newDocumentReader(data)
	defer docs.release() // out is made of values of its own
	err := docs.next(&root)
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: the file holds no YAML document", file)
	}
	if err != nil {
		p := yamlProblem(file, data, err)
		return fmt.Errorf("%s: %s", p.Pos, p.Message)
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return fmt.Errorf("%s: the document is not a YAML mapping", file)
	}
	// Errors carry their own line: no field index (pos) is needed.
	d := &nodeDecoder{file: file, budget: newBudget(), expanding: map[*yaml.Node]bool{}}
	if !d.decode(root.Content[0], reflect.ValueOf(out).Elem(), "") || d.problems.HasErrors() {
		return d.problems[0]
	}
	return nil
}

// DecodeFlatMap reads the first YAML document of data as a flat mapping of
// strings, keeping each scalar as written (0x1F stays "0x1F"), as the generator
// reads BIOS profiles (its siteConfigBuilder.go). A nested value is an error
// that names its key and line.
func DecodeFlatMap(file string, data []byte) (map[string]string, error) {
	var out map[string]string
	if err := decodeFirst(file, data, &out); err != nil {
		var p Problem
		if errors.As(err, &p) {
			p.Hint = "a BIOS profile is a flat map of setting: value"
			return nil, p
		}
		return nil, err
	}
	return out, nil
}
