package sites

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fuzzFile is the file name the fuzz targets give their input.
const fuzzFile = "fuzz/input.yaml"

// addSeeds adds every conformance input copied into testdata/fuzz-seeds,
// then the snippets.
func addSeeds(f *testing.F, snippets ...string) {
	f.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "fuzz-seeds", "*.yaml"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seeds in testdata/fuzz-seeds (%v)", err)
	}
	ci, _ := filepath.Glob(filepath.Join("testdata", "fuzz-seeds", "clusterinstance", "*.yaml"))
	paths = append(paths, ci...)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range snippets {
		f.Add([]byte(s))
	}
}

// malformed are inputs that break in different ways.
var malformed = []string{
	"",
	"---\n---\n",
	"kind: SiteConfig\n",
	"kind: SiteConfig\nspec: [unclosed\n",
	"kind: SiteConfig\nspec:\n\tclusters: []\n",
	"kind: SiteConfig\nspec: {clusters: [{}]}\n",
	"kind: SiteConfig\nspec: {clusters: {a: b}}\n",
	"apiVersion: ran.openshift.io/v2\nkind: SiteConfig\nspec:\n  clusters:\n  - clusterName: a\n    nodes: [{role: \"\"}, {role: worker}]\n    siteConfigMap: {}\n",
	"apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nspec:\n  clusters:\n  - clusterName: a\n    clusterName: b\n    nodes: {a: b}\n    holdInstallation: maybe\n",
	"kind: SiteConfig\nspec:\n  clusters:\n  - &c {clusterName: a, nodes: [{}]}\n  - *c\n",
	"kind: SiteConfig\nspec:\n  clusters:\n  - clusterName: a\n    nodes:\n    - userData: {<<: {a: 1}, b: [1, 2.5, 0644, ~, .inf]}\n",
	"kind: SiteConfig\nspec: *unknown\n",
	"kind: SiteConfig\n? [a, b]\n: c\n",
	"kind: SiteConfig\nspec:\n  clusters:\n  - clusterName: a\n    nodes:\n    - diskPartition: [{partitions: [{start: -1, size: 99999999999999999999}]}]\n",
	"kind: SiteConfig\n\xff\xfe: \x00\n",
	"kind: SiteConfig\n--- !!binary aGVsbG8=\n",
	"%YAML 1.1\n---\nkind: SiteConfig\n",
}

func FuzzDecodeFile(f *testing.F) {
	addSeeds(f, malformed...)
	f.Add([]byte(billionLaughs("bomb", 4, 4)))
	// An anchor used inside itself, where the types stop the recursion.
	f.Add([]byte("kind: SiteConfig\nspec: &s {clusters: *s}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sites, problems := decodeFile(fuzzFile, data, decodeOptions{})
		checkDecoded(t, sites, problems)

		// Strict mode turns warnings into errors and nothing else: the same
		// problems, and no site that the lenient mode dropped.
		strictSites, strictProblems := decodeFile(fuzzFile, data, decodeOptions{strict: true})
		checkDecoded(t, strictSites, strictProblems)
		if len(strictProblems) != len(problems) {
			t.Errorf("strict gives %d problems, lenient %d", len(strictProblems), len(problems))
		}
		if ws := only(strictProblems, SeverityWarning); len(ws) > 0 {
			t.Errorf("strict mode left warnings:\n%s", problemList(ws))
		}
		lenient := siteNames(sites)
		for _, s := range strictSites {
			if !slices.Contains(lenient, s.Name) {
				t.Errorf("site %q loads only in strict mode", s.Name)
			}
		}
	})
}

func checkDecoded(t *testing.T, sites []*Site, problems Problems) {
	t.Helper()
	for _, p := range problems {
		if p.Message == "" {
			t.Errorf("problem without a message: %+v", p)
		}
		if p.Pos.File != fuzzFile {
			t.Errorf("problem in file %q, want %q: %s", p.Pos.File, fuzzFile, p.Error())
		}
		if !strings.Contains(p.Error(), fuzzFile) {
			t.Errorf("Error() does not name the file: %s", p.Error())
		}
		if p.Severity != SeverityError && p.Severity != SeverityWarning {
			t.Errorf("severity %q: %s", p.Severity, p.Error())
		}
	}
	for _, s := range sites {
		if s.Name == "" {
			t.Errorf("site without a name: %+v", s)
		}
		if s.Instance != nil {
			if s.Config != nil || s.Cluster != nil || s.Name != s.Instance.Spec.ClusterName {
				t.Errorf("ClusterInstance site %q: Config %v Cluster %v", s.Name, s.Config != nil, s.Cluster != nil)
			}
			continue
		}
		if s.Config == nil || s.Index < 0 || s.Index >= len(s.Config.Spec.Clusters) || s.Cluster != &s.Config.Spec.Clusters[s.Index] {
			t.Errorf("site %q: Cluster is not Config.Spec.Clusters[%d]", s.Name, s.Index)
			continue
		}
		if s.Source.File != fuzzFile {
			t.Errorf("site %q: source %s, want %s", s.Name, s.Source, fuzzFile)
		}
		// A site that loaded has no error of its own.
		for _, p := range problems {
			if p.Severity == SeverityError && p.Site == s.Name {
				if i, ok := clusterIndex(p.Field); ok && i == s.Index && p.Pos.Line >= s.Source.Line {
					t.Errorf("site %q loaded despite %s", s.Name, p.Error())
				}
			}
		}
	}
}

func FuzzDecodeManifest(f *testing.F) {
	addSeeds(f, append(malformed,
		"kind: ConfigMap\ndata:\n  a: b\n",
		"mode: 0644\nlist: [1, 2.5, true, ~, '0644']\n",
		"- a\n- b\n",
		"a: &a {b: 1}\nc: *a\nd: [*a, *a]\n",
		"a: 18446744073709551615\nb: -9223372036854775809\nc: 1e400\nd: .nan\n",
		"first: 1\n---\nsecond: 2\n",
	)...)
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeManifest(fuzzFile, data)
		if err != nil {
			if m != nil {
				t.Errorf("DecodeManifest returned a map and an error")
			}
			if msg := err.Error(); !strings.Contains(msg, fuzzFile) {
				t.Errorf("error does not name the file: %q", msg)
			}
			return
		}
		if m == nil {
			t.Fatalf("DecodeManifest returned neither a map nor an error")
		}
		// The values are JSON-compatible, as documented.
		if _, err := json.Marshal(m); err != nil {
			t.Errorf("decoded manifest is not JSON-compatible: %v", err)
		}
	})
}

func TestDecodeManifest(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // JSON of the map, or the error's text parts after "ERR "
	}{
		{name: "scalars resolved as yaml.v3 does", src: "mode: 0644\nquoted: '0644'\non: true\nf: 1.5\nn: ~\nbig: 18446744073709551615\n",
			want: `{"big":18446744073709551615,"f":1.5,"mode":420,"n":null,"on":true,"quoted":"0644"}`},
		{name: "later documents are ignored", src: "a: 1\n---\nb: 2\n", want: `{"a":1}`},
		{name: "aliases followed", src: "x: &x {k: v}\ny: *x\n", want: `{"x":{"k":"v"},"y":{"k":"v"}}`},
		{name: "empty mapping", src: "{}\n", want: `{}`},
		{name: "empty file", src: "", want: "ERR m.yaml: the file holds no YAML document"},
		{name: "a list", src: "- a\n", want: "ERR m.yaml: the document is not a YAML mapping"},
		{name: "a scalar", src: "just text\n", want: "ERR m.yaml: the document is not a YAML mapping"},
		{name: "syntax error with its line", src: "a: b\nc:\n\td: 1\n", want: "ERR m.yaml:3:1: not valid YAML: found character that cannot start any token"},
		{name: "syntax error on an indented line", src: "a:\n  b: c\n   d: e\n", want: "ERR m.yaml:3:4: not valid YAML: mapping values are not allowed in this context"},
		{name: "duplicate key", src: "a: 1\na: 2\n", want: "ERR m.yaml:2:1: a: defined twice"},
		{name: "nested merge key", src: "a:\n  <<: {b: 1}\n", want: `{"a":{"b":1}}`},
		{name: "bad merge value", src: "a:\n  <<: [1]\n", want: "ERR m.yaml:2:8: a: a merge key (<<) takes mappings"},
		{name: "alias bomb", src: strings.SplitAfter(billionLaughs("x", 9, 10), "  l9: ")[0] + "&l9 {k: *l8, j: *l8, i: *l8, h: *l8, g: *l8, f: *l8, e: *l8, d: *l8, c: *l8, b: *l8, a: *l8}\n",
			want: "ERR m.yaml:1:1: the file expands to more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := DecodeManifest("m.yaml", []byte(tt.src))
			if wantErr, ok := strings.CutPrefix(tt.want, "ERR "); ok {
				if err == nil || !strings.HasPrefix(err.Error(), wantErr) {
					t.Fatalf("DecodeManifest = %v, %v; want error %q", m, err, wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(m)
			if err != nil || string(got) != tt.want {
				t.Errorf("DecodeManifest = %s (%v), want %s", got, err, tt.want)
			}
		})
	}
}
