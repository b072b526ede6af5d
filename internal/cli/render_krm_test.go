package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// runStdin runs the command line with stdin holding input.
func runStdin(t *testing.T, input string, args ...string) (string, string, int) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "stdin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(input); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	saved := os.Stdin
	os.Stdin = f
	t.Cleanup(func() { os.Stdin = saved; f.Close() })
	return run(t, args...)
}

// indent makes a YAML document an entry of a YAML list.
func indent(doc string) string {
	lines := strings.Split(strings.TrimRight(doc, "\n"), "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = "- " + lines[i]
		} else {
			lines[i] = "  " + lines[i]
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// objects decodes a YAML stream into objects, skipping empty documents.
func objects(t *testing.T, stream string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, doc := range strings.Split(stream, "\n---\n") {
		var o map[string]any
		if err := yaml.Unmarshal([]byte(strings.TrimPrefix(doc, "---\n")), &o); err != nil {
			t.Fatalf("not YAML: %v\n%s", err, doc)
		}
		if o != nil {
			out = append(out, o)
		}
	}
	return out
}

type resourceList struct {
	APIVersion string           `json:"apiVersion"`
	Kind       string           `json:"kind"`
	Items      []map[string]any `json:"items"`
	Results    []struct {
		Message     string `json:"message"`
		Severity    string `json:"severity"`
		Field       struct{ Path string }
		File        struct{ Path string }
		ResourceRef struct{ Kind, Name string } `json:"resourceRef"`
		Tags        map[string]string           `json:"tags"`
	} `json:"results"`
}

func decodeList(t *testing.T, out string) resourceList {
	t.Helper()
	var rl resourceList
	if err := yaml.Unmarshal([]byte(out), &rl); err != nil {
		t.Fatalf("output is not a ResourceList: %v\n%s", err, out)
	}
	if rl.APIVersion != "config.kubernetes.io/v1" || rl.Kind != "ResourceList" {
		t.Fatalf("output is %s %s, want a config.kubernetes.io/v1 ResourceList", rl.APIVersion, rl.Kind)
	}
	return rl
}

const passThroughItem = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep-me\n  namespace: other\ndata:\n  k: v\n"

func TestRenderKRMFunction(t *testing.T) {
	dir := writeTree(t, map[string]string{"alpha.yaml": site("alpha"), "bravo.yaml": site("bravo")})
	want, _, code := run(t, "render", "--root", dir, filepath.Join(dir, "alpha.yaml"), filepath.Join(dir, "bravo.yaml"))
	if code != ExitOK {
		t.Fatalf("render exit %d", code)
	}
	wantObjs := objects(t, want)
	alphaAsConfig := strings.Replace(site("alpha"), "metadata:\n", "metadata:\n  annotations:\n    config.kubernetes.io/function: |\n      exec: {path: siteops}\n", 1)
	tests := []struct {
		name  string
		input string
	}{
		{"sites as items, another item passed through",
			"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + indent(site("alpha")) + indent(passThroughItem) + indent(site("bravo"))},
		{"a generator: the site is the functionConfig and also an item",
			"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + indent(alphaAsConfig) + indent(passThroughItem) + indent(site("bravo")) +
				"functionConfig:\n" + strings.TrimRight("  "+strings.ReplaceAll(alphaAsConfig, "\n", "\n  "), " ") + "\n"},
		{"the functionConfig alone is a site",
			"{\"apiVersion\": \"config.kubernetes.io/v1\", \"kind\": \"ResourceList\", \"items\": [" + jsonOf(t, passThroughItem) + "," + jsonOf(t, site("bravo")) +
				"], \"functionConfig\": " + jsonOf(t, strings.Replace(site("alpha"), "name: good", "name: alpha-config", 1)) + "}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := runStdin(t, tt.input, "render", "--krm", "--root", dir)
			if code != ExitOK {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			rl := decodeList(t, out)
			if len(rl.Results) != 0 {
				t.Errorf("results %+v, want none", rl.Results)
			}
			var rendered []map[string]any
			kept := 0
			for _, it := range rl.Items {
				if it["kind"] == "ConfigMap" && it["metadata"].(map[string]any)["name"] == "keep-me" {
					kept++
					continue
				}
				rendered = append(rendered, it)
			}
			if kept != 1 {
				t.Errorf("the other item is in the output %d times, want once", kept)
			}
			got := map[string]map[string]any{}
			for _, o := range rendered {
				got[identity(o)] = o
			}
			if len(rendered) != len(wantObjs) || len(got) != len(wantObjs) {
				t.Fatalf("%d rendered items (%d distinct), want the %d objects of siteops render", len(rendered), len(got), len(wantObjs))
			}
			for _, w := range wantObjs {
				if !equalJSON(got[identity(w)], w) {
					t.Errorf("%s differs from siteops render's:\n%v\nwant\n%v", identity(w), got[identity(w)], w)
				}
			}
		})
	}
}

func jsonOf(t *testing.T, doc string) string {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return string(j)
}

func identity(o map[string]any) string {
	meta, _ := o["metadata"].(map[string]any)
	return o["apiVersion"].(string) + "/" + o["kind"].(string) + " " + str(meta["namespace"]) + "/" + str(meta["name"])
}

func str(v any) string { s, _ := v.(string); return s }

func equalJSON(a, b map[string]any) bool {
	ja, err1 := yaml.Marshal(a)
	jb, err2 := yaml.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

func TestRenderKRMProblems(t *testing.T) {
	dir := writeTree(t, map[string]string{})
	broken := strings.Replace(site("charlie"), "bootMACAddress:", "bootMACAdress:", 1)
	input := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" +
		indent(strings.Replace(broken, "metadata:\n", "metadata:\n  annotations:\n    internal.config.kubernetes.io/path: sites/charlie.yaml\n", 1)) +
		indent(site("alpha"))
	out, stderr, code := runStdin(t, input, "render", "--krm", "--strict", "--root", dir)
	if code != ExitFailure {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitFailure, stderr)
	}
	rl := decodeList(t, out)
	if len(rl.Items) != 8 {
		t.Errorf("%d items, want the 8 objects of the good site", len(rl.Items))
	}
	var found bool
	for _, r := range rl.Results {
		if r.Severity == "error" && r.Field.Path == "spec.clusters[0].nodes[0].bootMACAdress" && r.File.Path == "sites/charlie.yaml" &&
			r.Tags["site"] == "charlie" && strings.Contains(r.Message, `did you mean "bootMACAddress"`) &&
			r.ResourceRef.Kind == "SiteConfig" && r.ResourceRef.Name == "good" {
			found = true
		}
	}
	if !found {
		t.Errorf("no error result naming the file, field and site of the unknown field:\n%s", out)
	}
	if !strings.Contains(stderr, "sites/charlie.yaml: site charlie: spec.clusters[0].nodes[0].bootMACAdress:") {
		t.Errorf("stderr does not name file, site and field:\n%s", stderr)
	}
}

func TestRenderKRMRefusals(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.yaml": site("alpha")})
	tests := []struct {
		name, input string
		args        []string
		code        int
		stderr      string
	}{
		{"paths are refused", "", []string{"render", "--krm", filepath.Join(dir, "a.yaml")}, ExitUsage, "takes no paths"},
		{"--out-dir is refused", "", []string{"render", "--krm", "--out-dir", dir}, ExitUsage, "--out-dir does not apply"},
		{"a document that is not a ResourceList", site("alpha"), []string{"render", "--krm"}, ExitFailure, `stdin holds kind "SiteConfig"`},
		{"not YAML", "items: [", []string{"render", "--krm"}, ExitFailure, "not YAML"},
		{"an item that is not an object", "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [3]\n", []string{"render", "--krm"}, ExitFailure, "items[0]: expected an object"},
		{"over the size limit", "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n", []string{"render", "--krm", "--max-file-size", "10"}, ExitFailure, "over the 10-byte limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runStdin(t, tt.input, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.stderr)
			}
		})
	}
}

func TestRenderKRMEmpty(t *testing.T) {
	out, stderr, code := runStdin(t, "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n", "render", "--krm", "--root", t.TempDir())
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if rl := decodeList(t, out); len(rl.Items) != 0 {
		t.Errorf("items %v, want none", rl.Items)
	}
	if !strings.Contains(out, "items: []") {
		t.Errorf("output %q does not hold an empty items list", out)
	}
}

func TestRenderStdin(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.yaml": site("alpha"), "b.yaml": site("bravo")})
	fromFile, _, code := run(t, "render", "--root", dir, filepath.Join(dir, "a.yaml"))
	if code != ExitOK {
		t.Fatalf("render exit %d", code)
	}
	out, stderr, code := runStdin(t, site("alpha"), "render", "--root", dir, "-")
	if code != ExitOK || out != fromFile {
		t.Errorf("render - gave exit %d and\n%s\nwant the file's output\n%s\nstderr: %s", code, out, fromFile, stderr)
	}
	out, _, code = runStdin(t, site("alpha"), "render", "--root", dir, "-", filepath.Join(dir, "b.yaml"))
	if code != ExitOK || !strings.Contains(out, "name: alpha") || !strings.Contains(out, "name: bravo") {
		t.Errorf("render - b.yaml gave exit %d without both sites:\n%s", code, out)
	}
	_, stderr, code = runStdin(t, strings.Replace(site("alpha"), "baseDomain: example.com", "baseDomain: [a]", 1), "render", "--root", dir, "-")
	if code != ExitFailure || !strings.Contains(stderr, "stdin:6:") || !strings.Contains(stderr, "site good: spec.baseDomain") {
		t.Errorf("a broken site on stdin gave exit %d and stderr %q, want stdin:6: with site and field", code, stderr)
	}
	_, stderr, code = runStdin(t, "", "render", "-", "-")
	if code != ExitUsage || !strings.Contains(stderr, "given twice") {
		t.Errorf("render - - gave exit %d, stderr %q", code, stderr)
	}
}

func TestRenderKRMClusterInstance(t *testing.T) {
	dir := writeTree(t, map[string]string{"ci.yaml": ciBase})
	want, _, code := run(t, "render", "--root", dir, filepath.Join(dir, "ci.yaml"))
	if code != ExitOK {
		t.Fatalf("render exit %d", code)
	}
	out, stderr, code := runStdin(t, "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"+indent(ciBase), "render", "--krm", "--root", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rl := decodeList(t, out)
	wantObjs := objects(t, want)
	if len(rl.Items) != len(wantObjs) || len(wantObjs) == 0 {
		t.Fatalf("%d items, want the %d objects of siteops render", len(rl.Items), len(wantObjs))
	}
	for i, w := range wantObjs {
		if !equalJSON(rl.Items[i], w) {
			t.Errorf("item %d is not object %d of siteops render:\n%v\nwant\n%v", i, i, rl.Items[i], w)
		}
	}
}
