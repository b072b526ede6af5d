package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// docKey identifies a document as the conformance READMEs compare them.
type docKey struct{ Kind, Namespace, Name string }

func (k docKey) String() string { return fmt.Sprintf("%s %s/%s", k.Kind, k.Namespace, k.Name) }

// docSet parses a YAML stream into documents keyed by kind, namespace and
// name. ConfigMap data values are parsed as YAML too, so that key order and
// indentation inside a manifest do not matter.
func docSet(t *testing.T, data []byte) map[docKey]any {
	t.Helper()
	out := map[docKey]any{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("parse output: %v", err)
		}
		if d == nil {
			continue
		}
		md, _ := d["metadata"].(map[string]any)
		k := docKey{Kind: fmt.Sprint(d["kind"])}
		if md != nil {
			k.Namespace, _ = md["namespace"].(string)
			k.Name, _ = md["name"].(string)
		}
		if k.Kind == "ConfigMap" {
			if data, ok := d["data"].(map[string]any); ok {
				parsed := map[string]any{}
				for key, v := range data {
					var pv any
					if err := yaml.Unmarshal([]byte(fmt.Sprint(v)), &pv); err != nil {
						pv = v
					}
					parsed[key] = pv
				}
				d["data"] = parsed
			}
		}
		if _, dup := out[k]; dup {
			t.Errorf("document %s appears twice", k)
		}
		out[k] = d
	}
	return out
}

// diffSets reports how two document sets differ, field by field.
func diffSets(want, got map[docKey]any) []string {
	var diffs []string
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			diffs = append(diffs, "missing "+k.String())
			continue
		}
		diffs = append(diffs, diffValue(k.String(), w, g)...)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, "unexpected "+k.String())
		}
	}
	sort.Strings(diffs)
	return diffs
}

func diffValue(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want a mapping, got %#v", path, got)}
		}
		var out []string
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s.%s: missing (want %#v)", path, k, wv))
				continue
			}
			out = append(out, diffValue(path+"."+k, wv, gv)...)
		}
		for k, gv := range g {
			if _, ok := w[k]; !ok {
				out = append(out, fmt.Sprintf("%s.%s: unexpected %#v", path, k, gv))
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: want %#v, got %#v", path, want, got)}
		}
		var out []string
		for i := range w {
			out = append(out, diffValue(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	}
	if !reflect.DeepEqual(want, got) {
		return []string{fmt.Sprintf("%s: want %#v, got %#v", path, want, got)}
	}
	return nil
}

func joinLines(lines []string) string { return strings.Join(lines, "\n") }
