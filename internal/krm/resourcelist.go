package krm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"gopkg.in/yaml.v3"
)

// Kind and the API versions of a ResourceList (kyaml fn/framework: v1 is
// what current kustomize sends, v1beta1 what older spec text names).
const (
	Kind              = "ResourceList"
	APIVersion        = "config.kubernetes.io/v1"
	APIVersionV1Beta1 = "config.kubernetes.io/v1beta1"
)

// Annotations kustomize sets on items to say where they came from (kyaml
// kioutil: the internal.config.kubernetes.io form and the legacy one).
var (
	pathAnnotations  = []string{"internal.config.kubernetes.io/path", "config.kubernetes.io/path"}
	indexAnnotations = []string{"internal.config.kubernetes.io/index", "config.kubernetes.io/index"}
)

// Input is a decoded ResourceList.
type Input struct {
	// APIVersion is the input's, which the output repeats.
	APIVersion     string
	Items          []*Item
	FunctionConfig *Item
}

// Item is one object of the list.
type Item struct {
	APIVersion, Kind, Namespace, Name string
	// Path and Index are where the object came from, from its
	// annotations; Path is empty and Index -1 when not given.
	Path  string
	Index int
	// Position is the item's place in the list: "items[3]" or
	// "functionConfig".
	Position string
	node     *yaml.Node
}

// YAML returns the item as a YAML document.
func (it *Item) YAML() ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(it.node); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// SameObject reports whether two items name the same object.
func (it *Item) SameObject(o *Item) bool {
	return it.APIVersion == o.APIVersion && it.Kind == o.Kind && it.Namespace == o.Namespace && it.Name == o.Name
}

// Read decodes one ResourceList (YAML or JSON) of at most max bytes.
func Read(r io.Reader, max int64) (*Input, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("read the ResourceList: %w", err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("the ResourceList is over the %d-byte limit on input files", max)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("the ResourceList is not YAML: %w", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("stdin holds no ResourceList: expected a mapping with kind ResourceList and apiVersion " + APIVersion)
	}
	root := doc.Content[0]
	in := &Input{APIVersion: scalar(root, "apiVersion")}
	if kind := scalar(root, "kind"); kind != Kind || (in.APIVersion != APIVersion && in.APIVersion != APIVersionV1Beta1) {
		return nil, fmt.Errorf("stdin holds kind %q, apiVersion %q: a KRM function reads a ResourceList, apiVersion %s", kind, in.APIVersion, APIVersion)
	}
	if items := value(root, "items"); items != nil && items.Tag != "!!null" {
		if items.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("line %d: items: expected a list of objects", items.Line)
		}
		for i, n := range items.Content {
			it, err := newItem(n, fmt.Sprintf("items[%d]", i))
			if err != nil {
				return nil, err
			}
			in.Items = append(in.Items, it)
		}
	}
	if fc := value(root, "functionConfig"); fc != nil && fc.Tag != "!!null" {
		if in.FunctionConfig, err = newItem(fc, "functionConfig"); err != nil {
			return nil, err
		}
	}
	return in, nil
}

func newItem(n *yaml.Node, pos string) (*Item, error) {
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: %s: expected an object", n.Line, pos)
	}
	it := &Item{APIVersion: scalar(n, "apiVersion"), Kind: scalar(n, "kind"), Index: -1, Position: pos, node: n}
	meta := value(n, "metadata")
	it.Name, it.Namespace = scalar(meta, "name"), scalar(meta, "namespace")
	ann := value(meta, "annotations")
	for _, k := range pathAnnotations {
		if v := scalar(ann, k); v != "" {
			it.Path = v
			break
		}
	}
	for _, k := range indexAnnotations {
		if v, err := strconv.Atoi(scalar(ann, k)); err == nil {
			it.Index = v
			break
		}
	}
	return it, nil
}

// value returns the value of key in mapping n, or nil.
func value(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func scalar(n *yaml.Node, key string) string {
	if v := value(n, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}
