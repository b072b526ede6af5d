package krm

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"

	"gopkg.in/yaml.v3"
)

func TestRead(t *testing.T) {
	tests := []struct {
		name, in string
		items    int
		fc       bool
		err      string
	}{
		{name: "v1 with items and functionConfig", items: 2, fc: true,
			in: "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {apiVersion: v1, kind: A, metadata: {name: a}}\n- {apiVersion: v1, kind: B, metadata: {name: b}}\nfunctionConfig: {apiVersion: v1, kind: C, metadata: {name: c}}\n"},
		{name: "v1beta1", items: 0, in: "apiVersion: config.kubernetes.io/v1beta1\nkind: ResourceList\n"},
		{name: "JSON", items: 1, in: `{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[{"kind":"A"}]}`},
		{name: "null items", items: 0, in: "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"},
		{name: "another kind", err: `stdin holds kind "List"`, in: "apiVersion: v1\nkind: List\n"},
		{name: "another version", err: `apiVersion "config.kubernetes.io/v2"`, in: "apiVersion: config.kubernetes.io/v2\nkind: ResourceList\n"},
		{name: "empty", err: "stdin holds no ResourceList", in: ""},
		{name: "items not a list", err: "items: expected a list", in: "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: {a: b}\n"},
		{name: "an item not an object", err: "items[1]: expected an object", in: "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [{kind: A}, x]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := Read(strings.NewReader(tt.in), 1<<20)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(in.Items) != tt.items || (in.FunctionConfig != nil) != tt.fc {
				t.Errorf("%d items, functionConfig %v; want %d, %v", len(in.Items), in.FunctionConfig != nil, tt.items, tt.fc)
			}
		})
	}
	if _, err := Read(strings.NewReader("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"), 10); err == nil || !strings.Contains(err.Error(), "10-byte limit") {
		t.Errorf("over the limit: %v", err)
	}
}

func TestItemOrigin(t *testing.T) {
	in, err := Read(strings.NewReader(`apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: A
  metadata:
    name: a
    namespace: n
    annotations:
      internal.config.kubernetes.io/path: dir/a.yaml
      internal.config.kubernetes.io/index: '2'
- apiVersion: v1
  kind: B
  metadata:
    name: b
    annotations: {config.kubernetes.io/path: b.yaml, config.kubernetes.io/index: '0'}
`), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	a, b := in.Items[0], in.Items[1]
	if a.Path != "dir/a.yaml" || a.Index != 2 || a.Name != "a" || a.Namespace != "n" || a.Position != "items[0]" {
		t.Errorf("item a: %+v", a)
	}
	if b.Path != "b.yaml" || b.Index != 0 || b.Position != "items[1]" {
		t.Errorf("item b (legacy annotations): %+v", b)
	}
}

func TestAppendItemKeepsMeaning(t *testing.T) {
	doc := "apiVersion: v1\nkind: ConfigMap\ndata:\n  script: |\n    line one\n\n      indented\n  other: x\n"
	list := "items:\n" + string(AppendItem(AppendItem(nil, []byte(doc)), []byte("kind: B\n")))
	var got struct {
		Items []map[string]any `yaml:"items"`
	}
	if err := yaml.Unmarshal([]byte(list), &got); err != nil {
		t.Fatalf("%v\n%s", err, list)
	}
	var want map[string]any
	if err := yaml.Unmarshal([]byte(doc), &want); err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 2 || got.Items[0]["data"].(map[string]any)["script"] != want["data"].(map[string]any)["script"] || got.Items[1]["kind"] != "B" {
		t.Errorf("items %v, want the document then kind B", got.Items)
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b, "")
	if err := w.Close([]Result{{Message: "m", Severity: SeverityError, Field: &Field{Path: "spec.x"}, File: &File{Path: "a.yaml"}, Tags: map[string]string{"site": "s"}}}); err != nil {
		t.Fatal(err)
	}
	var rl map[string]any
	if err := yaml.Unmarshal(b.Bytes(), &rl); err != nil {
		t.Fatal(err)
	}
	if rl["apiVersion"] != APIVersion || rl["kind"] != Kind || len(rl["items"].([]any)) != 0 {
		t.Errorf("empty list: %s", b.String())
	}
	r := rl["results"].([]any)[0].(map[string]any)
	if r["severity"] != "error" || r["field"].(map[string]any)["path"] != "spec.x" || r["file"].(map[string]any)["path"] != "a.yaml" || r["tags"].(map[string]any)["site"] != "s" {
		t.Errorf("result %v", r)
	}
}

func TestFindOrigin(t *testing.T) {
	site := "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nmetadata:\n  name: s\n  namespace: s\nspec:\n  x: 1\n"
	fsys := fstest.MapFS{
		"kustomization.yaml":      {Data: []byte("generators:\n- sites/other.yaml\n- sites/s.yaml\n- ../outside.yaml\n- https://example.com/x.yaml\nresources:\n- base\n")},
		"sites/other.yaml":        {Data: []byte("kind: SiteConfig\napiVersion: ran.openshift.io/v1\nmetadata: {name: other}\n")},
		"sites/s.yaml":            {Data: []byte("# comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n---\n" + site)},
		"base/kustomization.yaml": {Data: []byte("resources: []\n")},
	}
	item := func(text string) *Item {
		in, err := Read(strings.NewReader("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- "+strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n  ")+"\n"), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		return in.Items[0]
	}
	annotated := strings.Replace(site, "metadata:\n", "metadata:\n  annotations:\n    config.kubernetes.io/local-config: 'true'\n", 1)
	tests := []struct {
		name string
		item *Item
		want Origin
		ok   bool
	}{
		{"the generator's config, as kustomize passes it", item(annotated), Origin{File: "sites/s.yaml", Line: 7, Exact: true}, true},
		{"changed on the way", item(strings.Replace(site, "x: 1", "x: 2", 1)), Origin{File: "sites/s.yaml", Line: 7}, true},
		{"not listed", item(strings.Replace(site, "name: s\n", "name: t\n", 1)), Origin{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := FindOrigin(fsys, tt.item, 1<<20)
			if ok != tt.ok || got != tt.want {
				t.Errorf("FindOrigin = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
