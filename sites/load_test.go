package sites

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"
)

// siteFile is a whole SiteConfig file with one clean cluster.
func siteFile(name string) string { return v1Doc(goodCluster(name)) }

// siteFileWith is a SiteConfig file with one cluster whose body is given.
func siteFileWith(name, body string) string { return v1Doc(cluster(name, body)) }

// mapFS builds a MapFS from path, content pairs.
func mapFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for p, data := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(data), Mode: 0o644}
	}
	return fsys
}

func load(t *testing.T, fsys fs.FS, paths []string, opts ...Option) *Fleet {
	t.Helper()
	fleet, err := Load(context.Background(), fsys, paths, opts...)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if fleet == nil {
		t.Fatal("Load returned no fleet")
	}
	return fleet
}

// wantNoProblems fails on any problem, warnings included.
func wantNoProblems(t *testing.T, ps Problems) {
	t.Helper()
	if len(ps) > 0 {
		t.Errorf("unexpected problems:\n%s", problemList(ps))
	}
}

func TestLoadWalk(t *testing.T) {
	fsys := mapFS(map[string]string{
		"fleet/a.yaml":                    siteFile("z-site"), // sorted by name, not by file
		"fleet/sub/b.yml":                 siteFile("b-site"),
		"fleet/sub/deeper/c.yaml":         siteFile("a-site"),
		"fleet/.git/d.yaml":               siteFile("in-dot-folder"),
		"fleet/.hidden.yaml":              siteFile("dot-file"),
		"fleet/status/e.yaml":             siteFile("in-status"),
		"fleet/sub/status/f.yaml":         siteFile("in-nested-status"),
		"fleet/notes.txt":                 siteFile("not-yaml"),
		"fleet/a.yaml.orig":               siteFile("backup"),
		"fleet/extra/broken.yaml":         "apiVersion: v1\nkind: ConfigMap\ndata: [unclosed\n",
		"fleet/extra/template.yaml":       "{{ .Cluster.ClusterName }}: [\n",
		"fleet/extra/machine.yaml":        "kind: MachineConfig\nspec: {}\n",
		"fleet/statusreport/g.yaml":       siteFile("status-prefix-is-fine"),
		"fleet/sub/deeper/empty.yaml":     "",
		"fleet/odd.yaml":                  "- SiteConfig\n---\njust text\n",
		"elsewhere/kz/kustomization.yaml": "generators: [site.yaml]\n",
		"elsewhere/kz/site.yaml":          siteFile("from-kustomization"),
	})
	tests := []struct {
		name     string
		paths    []string
		sites    []string
		problems []string // substrings of Error(), one problem each
	}{
		{name: "a directory", paths: []string{"fleet"},
			sites: []string{"a-site", "b-site", "status-prefix-is-fine", "z-site"}},
		{name: "the root", paths: []string{"."},
			sites: []string{"a-site", "b-site", "from-kustomization", "status-prefix-is-fine", "z-site"}},
		{name: "a sub-directory with a trailing slash", paths: []string{"fleet/sub/"},
			sites: []string{"a-site", "b-site"}},
		{name: "a file named explicitly is read whatever its name", paths: []string{"fleet/notes.txt", "fleet/status/e.yaml"},
			sites: []string{"in-status", "not-yaml"}},
		{name: "a path given twice is read once", paths: []string{"fleet/a.yaml", "fleet/./a.yaml", "fleet"},
			sites: []string{"a-site", "b-site", "status-prefix-is-fine", "z-site"}},
		{name: "a dot-folder named explicitly is walked", paths: []string{"fleet/.git"},
			sites: []string{"in-dot-folder"}},
		{name: "a missing path", paths: []string{"fleet/nope", "fleet/sub"},
			sites: []string{"a-site", "b-site"}, problems: []string{"fleet/nope: fleet/nope does not exist"}},
		{name: "a path outside the root", paths: []string{"../fleet", "fleet/sub"},
			sites: []string{"a-site", "b-site"}, problems: []string{`path "../fleet" leads outside the fleet root`}},
		{name: "an absolute path", paths: []string{"/etc", "fleet/sub"},
			sites: []string{"a-site", "b-site"}, problems: []string{`absolute path "/etc" is not allowed`}},
		{name: "a file named explicitly must define a site", paths: []string{"fleet/sub/deeper/empty.yaml", "fleet/extra/machine.yaml", "fleet/sub/b.yml"},
			sites: []string{"b-site"}, problems: []string{
				"fleet/sub/deeper/empty.yaml: the file holds no YAML document, so no site",
				`fleet/extra/machine.yaml: no SiteConfig or ClusterInstance document in the file, so no site: it holds kind "MachineConfig"`}},
		{name: "a named file whose documents are a list and a string", paths: []string{"fleet/odd.yaml"},
			problems: []string{"fleet/odd.yaml: no SiteConfig or ClusterInstance document in the file, so no site: it holds a list, a string"}},
		{name: "a kustomization named by its file is built like its directory", paths: []string{"elsewhere/kz/kustomization.yaml"},
			sites: []string{"from-kustomization"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fleet := load(t, fsys, tt.paths)
			wantSites(t, fleet.Sites, tt.sites...)
			if len(fleet.Problems) != len(tt.problems) {
				t.Fatalf("got %d problems, want %d:\n%s", len(fleet.Problems), len(tt.problems), problemList(fleet.Problems))
			}
			for _, want := range tt.problems {
				if p := problemMatching(t, fleet.Problems, want); p.Severity != SeverityError {
					t.Errorf("severity = %s, want error", p.Severity)
				}
			}
		})
	}
}

func TestLoadKustomization(t *testing.T) {
	fsys := mapFS(map[string]string{
		"fleet/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
generators:
- site-a.yaml
- sub/site-b.yaml
resources:
- ns.yaml
- gen-dir
- ../shared
`,
		"fleet/site-a.yaml":                siteFileWith("a", "extraManifests:\n  searchPaths: [manifests]\n"+oneNode("a0")),
		"fleet/sub/site-b.yaml":            siteFileWith("b", "crTemplates:\n  ClusterDeployment: templates/cd.yaml\n"+oneNode("b0")),
		"fleet/unlisted.yaml":              siteFile("unlisted"),
		"fleet/ns.yaml":                    "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n# not a SiteConfig\n",
		"fleet/gen-dir/c.yaml":             siteFileWith("c", "biosConfigRef:\n  filePath: bios.yaml\n"+oneNode("c0")),
		"fleet/gen-dir/kustomization.yaml": "generators: [c.yaml]\n",
		"fleet/manifests/01.yaml":          "kind: MachineConfig\n",
		"fleet/templates/cd.yaml":          "from: the kustomization directory\n",
		"fleet/sub/templates/cd.yaml":      "from: the directory of the SiteConfig file\n",
		"fleet/gen-dir/bios.yaml":          "BootMode: Uefi\n",
		"shared/kustomization.yml":         "generators: [s.yaml]\n",
		"shared/s.yaml":                    siteFileWith("s", "extraManifestPath: extra\n"+oneNode("s0")),
		"shared/extra/x.yaml":              "kind: ConfigMap\n",
		"shared/other.yaml":                siteFile("other-not-listed"),
		"fleet/unused/kustomization.yaml":  "generators: [u.yaml]\n",
		"fleet/unused/u.yaml":              siteFile("unused"),
	})
	tests := []struct {
		name  string
		paths []string
		sites []string
	}{
		{name: "the kustomization directory", paths: []string{"fleet"}, sites: []string{"a", "b", "c", "s"}},
		{name: "the root, finding both kustomizations", paths: []string{"."}, sites: []string{"a", "b", "c", "s"}},
		{name: "a sub-directory with its own kustomization", paths: []string{"fleet/unused"}, sites: []string{"unused"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fleet := load(t, fsys, tt.paths)
			wantNoProblems(t, fleet.Problems)
			wantSites(t, fleet.Sites, tt.sites...)
		})
	}

	t.Run("paths resolve against the kustomization directory", func(t *testing.T) {
		fleet := load(t, fsys, []string{"fleet"})
		wantNoProblems(t, fleet.Problems)
		bases := map[string]string{}
		for _, s := range fleet.Sites {
			bases[s.Name] = s.BaseDir
		}
		// kustomize runs a generator in the directory of the kustomization
		// that lists it.
		if want := map[string]string{"a": "fleet", "b": "fleet", "c": "fleet/gen-dir", "s": "shared"}; !maps.Equal(bases, want) {
			t.Errorf("BaseDir = %v, want %v", bases, want)
		}
		a, b, c, s := siteNamed(t, fleet.Sites, "a"), siteNamed(t, fleet.Sites, "b"), siteNamed(t, fleet.Sites, "c"), siteNamed(t, fleet.Sites, "s")
		if d := a.Files.Dirs["manifests"]; d == nil || d.Path != "fleet/manifests" || !slices.Equal(d.Names(), []string{"01.yaml"}) {
			t.Errorf("a: searchPaths dir = %+v, want fleet/manifests with 01.yaml", d)
		}
		if f := b.Files.Files["templates/cd.yaml"]; f == nil || f.Path != "fleet/templates/cd.yaml" || string(f.Data) != "from: the kustomization directory\n" {
			t.Errorf("b: crTemplate = %+v, want fleet/templates/cd.yaml", f)
		}
		if f := c.Files.Files["bios.yaml"]; f == nil || f.Path != "fleet/gen-dir/bios.yaml" {
			t.Errorf("c: BIOS file = %+v, want fleet/gen-dir/bios.yaml", f)
		}
		if d := s.Files.Dirs["extra"]; d == nil || d.Path != "shared/extra" {
			t.Errorf("s: extraManifestPath dir = %+v, want shared/extra", d)
		}
	})
}

func TestLoadKustomizationRefusals(t *testing.T) {
	tests := []struct {
		name    string
		entries string // the kustomization's generators: and resources:
		problem []string
	}{
		{name: "remote URL generator", entries: "generators:\n- https://github.com/org/fleet//sites?ref=main\n",
			problem: []string{"k/kustomization.yaml:2: ", `generators entry "https://github.com/org/fleet//sites?ref=main" is refused: it is a remote location`, "--allow-remote-bases"}},
		{name: "remote go-getter generator", entries: "generators:\n- github.com/org/fleet/site.yaml\n",
			problem: []string{"k/kustomization.yaml:2: ", "is a remote location"}},
		{name: "generator outside the root", entries: "generators:\n- ../../outside.yaml\n",
			problem: []string{"k/kustomization.yaml:2: ", `generators entry "../../outside.yaml"`, "leads outside the fleet root"}},
		{name: "missing generator", entries: "generators:\n- missing.yaml\n",
			problem: []string{"k/missing.yaml does not exist"}},
		{name: "kustomization that is not YAML", entries: "generators: [unclosed\n",
			problem: []string{"k/kustomization.yaml:", "invalid Kustomization", "did not find expected"}},
		{name: "generators of the wrong type", entries: "generators: {a: b}\n",
			problem: []string{"k/kustomization.yaml", "invalid Kustomization", "cannot unmarshal"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := mapFS(map[string]string{
				"k/kustomization.yaml": tt.entries,
				"good/good.yaml":       siteFile("good"),
				"outside.yaml":         siteFile("outside"),
			})
			fleet := load(t, fsys, []string{"k", "good"})
			wantSites(t, fleet.Sites, "good")
			p := oneProblem(t, fleet.Problems, SeverityError)
			wantContains(t, "Error()", p.Error(), tt.problem...)
		})
	}
}

func TestLoadDuplicateClusterAcrossFiles(t *testing.T) {
	a := "# first\n" + siteFile("twin")
	b := "# second\n# definition\n" + siteFile("twin")
	fsys := mapFS(map[string]string{"a.yaml": a, "b.yaml": b, "c.yaml": siteFile("solo")})
	fleet := load(t, fsys, []string{"."})
	wantSites(t, fleet.Sites, "solo")
	if len(fleet.Problems) != 2 {
		t.Fatalf("want 2 problems, got:\n%s", problemList(fleet.Problems))
	}
	posA := locateIn(t, "a.yaml", a, "", "clusterName: twin")
	posB := locateIn(t, "b.yaml", b, "", "clusterName: twin")
	for _, tt := range []struct{ at, other Position }{{posA, posB}, {posB, posA}} {
		p := problemMatching(t, fleet.Problems, tt.at.String()+":")
		if p.Site != "twin" || p.Field != "spec.clusters[0].clusterName" || p.Severity != SeverityError {
			t.Errorf("problem = %+v", p)
		}
		wantContains(t, "message", p.Message, `cluster "twin" is also defined at `+tt.other.String())
		wantContains(t, "hint", p.Hint, "unique across the fleet")
	}
}

// billionLaughs returns a SiteConfig whose nodeNetwork.config expands to
// width^levels nodes through aliases.
func billionLaughs(name string, levels, width int) string {
	var b strings.Builder
	b.WriteString("anchors:\n  l0: &l0 {k: lol}\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d {", i, i)
		for j := range width {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "k%d: *l%d", j, i-1)
		}
		b.WriteString("}\n")
	}
	return b.String() + siteFileWith(name, fmt.Sprintf("nodes:\n- hostName: n0\n  nodeNetwork:\n    config: *l%d\n", levels))
}

// TestLoadBadFiles checks that each kind of broken input gives its problem
// and that the good site next to it still loads.
func TestLoadBadFiles(t *testing.T) {
	big := siteFile("big") + "# " + strings.Repeat("padding ", 200) + "\n"
	tests := []struct {
		name  string
		files map[string]string
		opts  []Option
		paths []string // "." when empty
		want  []string // parts of the one error's Error()
		file  string   // the file the problem must be in
		field string
		site  string
		at    string // where the problem points, for a field
	}{
		{name: "malformed YAML", files: map[string]string{"bad.yaml": "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nspec:\n\tclusters: []\n"},
			want: []string{"bad.yaml:4:1: ", "not valid YAML"}, file: "bad.yaml"},
		{name: "alias bomb", files: map[string]string{"bomb.yaml": billionLaughs("bomb", 9, 10)},
			want: []string{"bomb.yaml:1:1: ", "aliases", "alias bomb"}, file: "bomb.yaml"},
		{name: "file over the size limit", files: map[string]string{"big.yaml": big}, opts: []Option{WithMaxFileSize(1024)},
			want: []string{"big.yaml: ", fmt.Sprintf("big.yaml is %d bytes, over the 1024-byte limit", len(big))}, file: "big.yaml"},
		{name: "referenced file over the size limit", opts: []Option{WithMaxFileSize(1024)}, paths: []string{"ref.yaml", "good"}, files: map[string]string{
			"ref.yaml": siteFileWith("ref", "crTemplates:\n  ClusterDeployment: cd.yaml\n"+oneNode("n0")),
			"cd.yaml":  "# " + strings.Repeat("x", 1100) + "\n",
		}, want: []string{"cd.yaml is 1103 bytes, over the 1024-byte limit"}, file: "ref.yaml", field: "spec.clusters[0].crTemplates.ClusterDeployment", site: "ref", at: "ClusterDeployment:"},
		{name: "extraManifestPath escaping the root", files: map[string]string{
			"esc.yaml": siteFileWith("esc", "extraManifestPath: ../x\n"+oneNode("n0")),
		}, want: []string{`path "../x" leads outside the fleet root`}, file: "esc.yaml", field: "spec.clusters[0].extraManifestPath", site: "esc", at: "extraManifestPath:"},
		{name: "absolute crTemplate path", files: map[string]string{
			"abs.yaml": siteFileWith("abs", "nodes:\n- hostName: n0\n  crTemplates:\n    BareMetalHost: /etc/passwd\n"),
		}, want: []string{`absolute path "/etc/passwd" is not allowed`}, file: "abs.yaml", field: "spec.clusters[0].nodes[0].crTemplates.BareMetalHost", site: "abs", at: "BareMetalHost:"},
		{name: "BIOS path climbing out through a sub-directory", files: map[string]string{
			"sub/climb.yaml": siteFileWith("climb", "biosConfigRef:\n  filePath: sub/../../../etc/passwd\n"+oneNode("n0")),
		}, want: []string{"leads outside the fleet root"}, file: "sub/climb.yaml", field: "spec.clusters[0].biosConfigRef.filePath", site: "climb", at: "filePath:"},
		{name: "searchPaths entry escaping the root", files: map[string]string{
			"sp.yaml":   siteFileWith("sp", "extraManifests:\n  searchPaths:\n  - ok\n  - ../../elsewhere\n"+oneNode("n0")),
			"ok/m.yaml": "kind: ConfigMap\n",
		}, want: []string{"leads outside the fleet root"}, file: "sp.yaml", field: "spec.clusters[0].extraManifests.searchPaths[1]", site: "sp", at: "../../elsewhere"},
		{name: "missing referenced file", files: map[string]string{
			"miss.yaml": siteFileWith("miss", "nodes:\n- hostName: n0\n  biosConfigRef:\n    filePath: bios/missing.yaml\n"),
		}, want: []string{"bios/missing.yaml does not exist"}, file: "miss.yaml", field: "spec.clusters[0].nodes[0].biosConfigRef.filePath", site: "miss", at: "filePath:"},
		{name: "missing extra-manifest directory", files: map[string]string{
			"missdir.yaml": siteFileWith("missdir", "extraManifestPath: manifests/nope\n"+oneNode("n0")),
		}, want: []string{"manifests/nope does not exist"}, file: "missdir.yaml", field: "spec.clusters[0].extraManifestPath", site: "missdir", at: "extraManifestPath:"},
		{name: "crTemplate that is a directory", files: map[string]string{
			"dir.yaml":          siteFileWith("dir", "crTemplates:\n  InfraEnv: tmpl\n"+oneNode("n0")),
			"tmpl/ignored.yaml": "kind: InfraEnv\n",
		}, want: []string{"tmpl is a directory, not a file"}, file: "dir.yaml", field: "spec.clusters[0].crTemplates.InfraEnv", site: "dir", at: "InfraEnv:"},
		{name: "referenced file denied", files: map[string]string{
			"denied.yaml": siteFileWith("denied", "crTemplates:\n  InfraEnv: secret/infraenv.yaml\n"+oneNode("n0")),
		}, want: []string{"secret/infraenv.yaml cannot be read: permission denied"}, file: "denied.yaml", field: "spec.clusters[0].crTemplates.InfraEnv", site: "denied", at: "InfraEnv:"},
		{name: "site file denied", files: map[string]string{"secret/site.yaml": siteFile("hidden")},
			want: []string{"secret/site.yaml: secret/site.yaml cannot be read: permission denied"}, file: "secret/site.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := maps.Clone(tt.files)
			files["good/good.yaml"] = siteFile("good")
			fsys := denyFS{FS: mapFS(files), denied: "secret/"}
			paths := tt.paths
			if paths == nil {
				paths = []string{"."}
			}
			start := time.Now()
			fleet := load(t, fsys, paths, tt.opts...)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Load took %v, want well under 5s", d)
			}
			wantSites(t, fleet.Sites, "good")
			p := oneProblem(t, fleet.Problems, SeverityError)
			wantContains(t, "Error()", p.Error(), tt.want...)
			if p.Pos.File != tt.file || p.Field != tt.field || p.Site != tt.site {
				t.Errorf("problem in %q field %q site %q, want %q %q %q", p.Pos.File, p.Field, p.Site, tt.file, tt.field, tt.site)
			}
			if tt.field != "" {
				// A problem with a referenced path points at the path's key,
				// or at the entry itself in a list.
				want := locateIn(t, tt.file, files[tt.file], "", tt.at)
				if p.Pos != want {
					t.Errorf("problem at %s, want %s (at %q)", p.Pos, want, tt.at)
				}
			}
		})
	}
}

// denyFS refuses to open anything under the denied prefix, the way a file
// without read permission is refused. It works when the tests run as root.
type denyFS struct {
	fs.FS
	denied string
}

func (d denyFS) Open(name string) (fs.File, error) {
	if d.denied != "" && strings.HasPrefix(name, d.denied) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return d.FS.Open(name)
}

func TestLoadSiteLevelReferenceFailsEveryCluster(t *testing.T) {
	src := siteConfigText("ran.openshift.io/v1", imageSetSpec+"  biosConfigRef:\n    filePath: bios/missing.yaml\n",
		goodCluster("c1"), goodCluster("c2"))
	fleet := load(t, mapFS(map[string]string{"s.yaml": src, "good.yaml": siteFile("good")}), []string{"."})
	wantSites(t, fleet.Sites, "good")
	want := locateIn(t, "s.yaml", src, "", "filePath:")
	for _, site := range []string{"c1", "c2"} {
		p := problemMatching(t, fleet.Problems, "site "+site+":")
		if p.Field != "spec.biosConfigRef.filePath" || p.Pos != want {
			t.Errorf("%s: problem %s, want field spec.biosConfigRef.filePath at %s", site, p.Error(), want)
		}
	}
}

// TestLoadSymlinks uses a real directory: os.Root refuses symlinks that
// lead outside it, and Load must report them as such.
func TestLoadSymlinks(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	write := func(p, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	symlink := func(target, link string) {
		t.Helper()
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("cannot make symlinks here: %v", err)
		}
	}
	write(filepath.Join(dir, "outside", "site.yaml"), siteFile("outside"))
	write(filepath.Join(dir, "outside", "bmh.yaml"), "kind: BareMetalHost\n")
	write(filepath.Join(root, "good.yaml"), siteFile("good"))
	write(filepath.Join(root, "templates", "bmh.yaml"), "kind: BareMetalHost\n# inside\n")
	write(filepath.Join(root, "inside.yaml"), siteFileWith("inside", "nodes:\n- hostName: n0\n  crTemplates:\n    BareMetalHost: links/bmh.yaml\n"))
	write(filepath.Join(root, "refs.yaml"), siteFileWith("refs", "extraManifestPath: links/outdir\n"+oneNode("n0")))
	write(filepath.Join(root, "reffile.yaml"), siteFileWith("reffile", "crTemplates:\n  BareMetalHost: links/outfile.yaml\n"+oneNode("n0")))
	if err := os.MkdirAll(filepath.Join(root, "links"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink("../../outside/site.yaml", filepath.Join(root, "escape.yaml"))
	symlink("/etc/hostname", filepath.Join(root, "absolute.yaml"))
	symlink("../templates/bmh.yaml", filepath.Join(root, "links", "bmh.yaml"))
	symlink("../../outside", filepath.Join(root, "links", "outdir"))
	symlink("../../outside/bmh.yaml", filepath.Join(root, "links", "outfile.yaml"))

	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	fleet := load(t, r.FS(), []string{"."})

	wantSites(t, fleet.Sites, "good", "inside")
	if f := siteNamed(t, fleet.Sites, "inside").Files.Files["links/bmh.yaml"]; f == nil || !strings.Contains(string(f.Data), "# inside") {
		t.Errorf("a symlink inside the root was not followed: %+v", f)
	}
	if len(fleet.Problems) != 5 {
		t.Errorf("want 5 problems, got:\n%s", problemList(fleet.Problems))
	}
	for _, want := range [][]string{
		{"escape.yaml: escape.yaml is a symlink that leads outside the fleet root"},
		// The walk meets the link too: it is a .yaml file in the tree.
		{"links/outfile.yaml: links/outfile.yaml is a symlink that leads outside the fleet root"},
		{"absolute.yaml: absolute.yaml is a symlink that leads outside the fleet root"},
		{"refs.yaml:", "site refs: spec.clusters[0].extraManifestPath: links/outdir is a symlink that leads outside the fleet root"},
		{"reffile.yaml:", "site reffile: spec.clusters[0].crTemplates.BareMetalHost: links/outfile.yaml is a symlink that leads outside"},
	} {
		problemMatching(t, fleet.Problems, want...)
	}
}

func TestLoadUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "good.yaml"), []byte(siteFile("good")), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "locked.yaml")
	if err := os.WriteFile(bad, []byte(siteFile("locked")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bad, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(bad, 0o644) })
	if _, err := os.ReadFile(bad); err == nil {
		t.Skipf("a file with mode 000 is still readable (running as uid %d, which bypasses permissions); TestLoadBadFiles covers the case with an fs.FS that refuses", os.Getuid())
	}
	fleet := load(t, os.DirFS(dir), []string{"."})
	wantSites(t, fleet.Sites, "good")
	p := oneProblem(t, fleet.Problems, SeverityError)
	if got, want := p.Error(), "locked.yaml: locked.yaml cannot be read: permission denied"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestLoadReferencedFiles(t *testing.T) {
	src := siteConfigText("ran.openshift.io/v1", imageSetSpec+`  crTemplates:
    AgentClusterInstall: tmpl/aci.yaml
  biosConfigRef:
    filePath: bios/site.yaml
`, cluster("c1", `crTemplates:
  ClusterDeployment: tmpl/cd.yaml
biosConfigRef:
  filePath: bios/cluster.yaml
extraManifestPath: does/not/exist
extraManifests:
  searchPaths:
  - m/common
  - m/overlay
nodes:
- hostName: n0
  crTemplates:
    BareMetalHost: tmpl/bmh.yaml
  biosConfigRef:
    filePath: bios/node.yaml
`), cluster("c2", "extraManifestPath: m/legacy\n"+oneNode("n0")))
	fsys := mapFS(map[string]string{
		"site.yaml":                src,
		"tmpl/aci.yaml":            "kind: AgentClusterInstall\n",
		"tmpl/cd.yaml":             "kind: ClusterDeployment\n",
		"tmpl/bmh.yaml":            "kind: BareMetalHost\n",
		"bios/site.yaml":           "level: site\n",
		"bios/cluster.yaml":        "level: cluster\n",
		"bios/node.yaml":           "level: node\n",
		"m/common/01-a.yaml":       "kind: MachineConfig\n",
		"m/common/.hidden.yaml":    "kind: Secret\n",
		"m/common/empty.yaml":      "  \n\n",
		"m/common/sub/x.yaml":      "kind: ConfigMap\n",
		"m/common/workload/w.yaml": "kind: MachineConfig\n",
		"m/overlay/02-b.yaml":      "b\n",
		"m/overlay/00-z.yaml":      "z\n",
		"m/legacy/l.yaml":          "l\n",
	})
	fleet := load(t, fsys, []string{"site.yaml"})
	wantNoProblems(t, fleet.Problems)
	wantSites(t, fleet.Sites, "c1", "c2")
	c1, c2 := fleet.Sites[0], fleet.Sites[1]

	got := map[string]string{}
	for k, f := range c1.Files.Files {
		got[k] = f.Path + " = " + string(f.Data)
	}
	want := map[string]string{
		"tmpl/aci.yaml":     "tmpl/aci.yaml = kind: AgentClusterInstall\n",
		"tmpl/cd.yaml":      "tmpl/cd.yaml = kind: ClusterDeployment\n",
		"tmpl/bmh.yaml":     "tmpl/bmh.yaml = kind: BareMetalHost\n",
		"bios/site.yaml":    "bios/site.yaml = level: site\n",
		"bios/cluster.yaml": "bios/cluster.yaml = level: cluster\n",
		"bios/node.yaml":    "bios/node.yaml = level: node\n",
	}
	if !maps.Equal(got, want) {
		t.Errorf("c1 files:\n got %q\nwant %q", got, want)
	}
	if keys := slices.Sorted(maps.Keys(c1.Files.Dirs)); !slices.Equal(keys, []string{"m/common", "m/overlay"}) {
		t.Errorf("c1 dirs = %q, want the searchPaths only (extraManifestPath is replaced)", keys)
	}
	common, overlay := c1.Files.Dirs["m/common"], c1.Files.Dirs["m/overlay"]
	if !slices.Equal(common.Names(), []string{"01-a.yaml"}) || common.Path != "m/common" {
		t.Errorf("m/common = %q at %q, want [01-a.yaml]: no dot-files, empty files or sub-directories", common.Names(), common.Path)
	}
	if common.Workload == nil || !slices.Equal(common.Workload.Names(), []string{"w.yaml"}) || common.Workload.Path != "m/common/workload" {
		t.Errorf("m/common/workload = %+v, want w.yaml", common.Workload)
	}
	if !slices.Equal(overlay.Names(), []string{"00-z.yaml", "02-b.yaml"}) || string(overlay.Files[0].Data) != "z\n" || overlay.Workload != nil {
		t.Errorf("m/overlay = %q, want [00-z.yaml 02-b.yaml] sorted", overlay.Names())
	}

	if keys := slices.Sorted(maps.Keys(c2.Files.Dirs)); !slices.Equal(keys, []string{"m/legacy"}) {
		t.Errorf("c2 dirs = %q, want [m/legacy]", keys)
	}
	if keys := slices.Sorted(maps.Keys(c2.Files.Files)); !slices.Equal(keys, []string{"bios/site.yaml", "tmpl/aci.yaml"}) {
		t.Errorf("c2 files = %q, want the site-level ones", keys)
	}
	if c1.Files.Files["tmpl/aci.yaml"] != c2.Files.Files["tmpl/aci.yaml"] {
		t.Errorf("the site-level crTemplate was read twice")
	}
}

// countingFS counts how often each name is opened.
type countingFS struct {
	fs.FS
	mu     sync.Mutex
	opened map[string]int
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opened[name]++
	c.mu.Unlock()
	return c.FS.Open(name)
}

func TestLoadSharedDirectoryIsReadOnce(t *testing.T) {
	const n = 100
	files := map[string]string{
		"shared/manifests/01-a.yaml": "kind: MachineConfig\n",
		"shared/manifests/02-b.yaml": "kind: MachineConfig\n",
		"shared/bmh.yaml":            "kind: BareMetalHost\n",
	}
	body := "extraManifests:\n  searchPaths: [shared/manifests]\nnodes:\n- hostName: n0\n  crTemplates:\n    BareMetalHost: shared/bmh.yaml\n"
	for i := range n {
		files[fmt.Sprintf("sites/s%03d.yaml", i)] = siteFileWith(fmt.Sprintf("site-%03d", i), body)
	}
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprintf("%d workers", workers), func(t *testing.T) {
			fsys := &countingFS{FS: mapFS(files), opened: map[string]int{}}
			fleet := load(t, fsys, []string{"sites"}, WithWorkers(workers))
			wantNoProblems(t, fleet.Problems)
			if len(fleet.Sites) != n {
				t.Fatalf("got %d sites, want %d", len(fleet.Sites), n)
			}
			dir, tmpl := fleet.Sites[0].Files.Dirs["shared/manifests"], fleet.Sites[0].Files.Files["shared/bmh.yaml"]
			if dir == nil || len(dir.Files) != 2 || tmpl == nil {
				t.Fatalf("first site: dir %+v, template %+v", dir, tmpl)
			}
			for _, s := range fleet.Sites {
				if s.Files.Dirs["shared/manifests"] != dir || s.Files.Files["shared/bmh.yaml"] != tmpl {
					t.Fatalf("%s has its own copy of the shared directory or template", s.Name)
				}
			}
			// With one worker each is opened exactly once. With more, sites
			// resolving at the same moment may each read a path before the
			// first read is remembered; the memo keeps one value (so the
			// pointers above are equal), and the reads never outnumber the
			// workers.
			for _, name := range []string{"shared/manifests", "shared/manifests/01-a.yaml", "shared/bmh.yaml"} {
				if got := fsys.opened[name]; got < 1 || got > workers {
					t.Errorf("%s opened %d times, want 1..%d", name, got, workers)
				}
			}
		})
	}
}

func TestLoadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fleet, err := Load(ctx, mapFS(map[string]string{"a.yaml": siteFile("a")}), []string{"."})
	if !errors.Is(err, context.Canceled) || fleet != nil {
		t.Errorf("Load = %v, %v; want nil, context.Canceled", fleet, err)
	}
}

func TestLoadOptions(t *testing.T) {
	files := map[string]string{
		"a.yaml": siteFileWith("a", "nodes:\n- hostName: n0\n  bmcAdress: x\n"),
		"b.yaml": siteFile("b"),
	}
	const ignored, refused = `unknown field "bmcAdress" is ignored`, `unknown field "bmcAdress" is not allowed (--strict)`
	for _, tt := range []struct {
		name     string
		opts     []Option
		sites    []string
		severity Severity
		message  string
	}{
		{name: "default", sites: []string{"a", "b"}, severity: SeverityWarning, message: ignored},
		{name: "strict", opts: []Option{WithStrict(true)}, sites: []string{"b"}, severity: SeverityError, message: refused},
		{name: "strict off again", opts: []Option{WithStrict(true), WithStrict(false)}, sites: []string{"a", "b"}, severity: SeverityWarning, message: ignored},
		{name: "zero workers means one", opts: []Option{WithWorkers(0)}, sites: []string{"a", "b"}, severity: SeverityWarning, message: ignored},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fleet := load(t, mapFS(files), []string{"."}, tt.opts...)
			wantSites(t, fleet.Sites, tt.sites...)
			p := oneProblem(t, fleet.Problems, tt.severity)
			if p.Pos.File != "a.yaml" || p.Field != "spec.clusters[0].nodes[0].bmcAdress" || p.Hint != `did you mean "bmcAddress"?` || p.Message != tt.message {
				t.Errorf("problem = %s", p.Error())
			}
		})
	}
}

func TestStream(t *testing.T) {
	a := siteFile("zeta")
	b := v1Doc(goodCluster("alpha"), cluster("broken", "nodes: 3\n"))
	c := "# again\n" + siteFile("zeta")
	fsys := mapFS(map[string]string{
		"a.yaml": a, "b.yaml": b, "c.yaml": c, "d.yaml": siteFile("delta"),
		"k/kustomization.yaml": "generators: [https://example.com/x.yaml]\n",
	})
	var got []string
	var items []Item
	err := Stream(context.Background(), fsys, []string{"."},
		func(s *Site) any { return "work:" + s.Name },
		func(it Item) error {
			items = append(items, it)
			if it.Site != nil {
				got = append(got, fmt.Sprintf("site %s %v", it.Site.Name, it.Result))
			} else {
				for _, p := range it.Problems {
					got = append(got, fmt.Sprintf("problem %s %s", p.Pos.File, p.Site))
				}
			}
			return nil
		}, WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	// In file order: the collection problem, then each file's problems
	// before its sites; the second zeta is reported on both definitions
	// and not delivered.
	want := []string{
		"problem k/kustomization.yaml ",
		"site zeta work:zeta",
		"problem b.yaml broken",
		"site alpha work:alpha",
		"problem a.yaml zeta", "problem c.yaml zeta",
		"site delta work:delta",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("items:\n got %q\nwant %q", got, want)
	}
	var dup Problems
	for _, it := range items {
		if len(it.Problems) > 0 && it.Problems[0].Site == "zeta" {
			dup = it.Problems
		}
	}
	if len(dup) != 2 {
		t.Fatalf("duplicate problems = %v, want 2 in one item", dup)
	}
	posA := locateIn(t, "a.yaml", a, "", "clusterName: zeta")
	posC := locateIn(t, "c.yaml", c, "", "clusterName: zeta")
	if dup[0].Pos != posA || dup[1].Pos != posC {
		t.Errorf("duplicate problems at %s and %s, want %s and %s", dup[0].Pos, dup[1].Pos, posA, posC)
	}
	wantContains(t, "first", dup[0].Message, "also defined at "+posC.String())
	wantContains(t, "second", dup[1].Message, "already defined at "+posA.String(), "not rendered")
	if dup[1].Field != "spec.clusters[0].clusterName" || dup[1].Site != "zeta" || dup[0].Severity != SeverityError || dup[1].Severity != SeverityError {
		t.Errorf("duplicate problems = %+v", dup)
	}

	t.Run("emit error stops the stream", func(t *testing.T) {
		stop := errors.New("stop")
		n := 0
		err := Stream(context.Background(), fsys, []string{"."}, nil, func(it Item) error {
			n++
			if it.Site != nil {
				return stop
			}
			return nil
		})
		// The kustomization's problem, then the first site.
		if !errors.Is(err, stop) || n != 2 {
			t.Errorf("Stream = %v after %d items, want stop after 2", err, n)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := Stream(ctx, fsys, []string{"."}, nil, func(Item) error { return nil })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Stream = %v, want context.Canceled", err)
		}
	})
}

// Files go to the workers in batches; the sites still arrive in file
// order, each worked on once, whatever the number of workers, and an
// error from emit stops the batches still to come.
func TestStreamBatches(t *testing.T) {
	const n = 600
	files := map[string]string{}
	var want []string
	for i := range n {
		name := fmt.Sprintf("site-%03d", i)
		files[name+".yaml"] = siteFile(name)
		want = append(want, name)
	}
	fsys := mapFS(files)
	for _, workers := range []int{1, 2, 3, 7} {
		var worked atomic.Int64
		var got []string
		err := Stream(context.Background(), fsys, []string{"."},
			func(s *Site) any { worked.Add(1); return s.Name },
			func(it Item) error {
				if it.Site == nil || it.Result != it.Site.Name {
					t.Fatalf("item %+v, want a site with its work's result", it)
				}
				got = append(got, it.Site.Name)
				return nil
			}, WithWorkers(workers))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || worked.Load() != n {
			t.Errorf("%d workers: %d sites (worked on %d times), want the %d in file order", workers, len(got), worked.Load(), n)
		}
	}

	stop := errors.New("stop")
	var worked atomic.Int64
	emitted := 0
	err := Stream(context.Background(), fsys, []string{"."},
		func(*Site) any { worked.Add(1); return nil },
		func(Item) error {
			if emitted++; emitted == 10 {
				return stop
			}
			return nil
		}, WithWorkers(2))
	if !errors.Is(err, stop) || emitted != 10 {
		t.Errorf("Stream = %v after %d items, want stop after 10", err, emitted)
	}
	// At most the window of batches in flight is worked on past the stop.
	if w := worked.Load(); w >= n/2 {
		t.Errorf("%d of %d sites worked on after emit stopped at the 10th", w, n)
	}
}

// A batch is eight sites' worth of the largest file decoded so far; one
// file until one has been decoded; and fewer when the files are too few
// for eight batches a worker.
func TestBatchSize(t *testing.T) {
	for _, tt := range []struct {
		files, workers int
		mostSites      int64
		want           int
	}{
		{10000, 2, -1, 1}, // nothing decoded yet
		{10000, 2, 1, 8},
		{10000, 2, 0, 8}, // files without sites (extra manifests)
		{10000, 2, 2, 4},
		{10000, 2, 3, 2},
		{10000, 2, 8, 1},
		{10000, 2, 500, 1}, // files of hundreds of sites: one at a time
		{10000, 64, 1, 8},
		{20, 2, 1, 1}, // too few to batch: every worker gets many
		{48, 2, 1, 3}, // 48 / (8*2)
		{100, 64, 1, 1},
	} {
		if got := batchSize(tt.files, tt.workers, tt.mostSites); got != tt.want {
			t.Errorf("batchSize(%d files, %d workers, the largest of %d sites) = %d, want %d",
				tt.files, tt.workers, tt.mostSites, got, tt.want)
		}
	}
}

// storeMax only ever raises the value, from the -1 decodeStream starts at.
func TestStoreMax(t *testing.T) {
	var v atomic.Int64
	v.Store(-1)
	for _, tt := range []struct{ n, want int64 }{{0, 0}, {3, 3}, {1, 3}, {3, 3}, {9, 9}, {-1, 9}} {
		if storeMax(&v, tt.n); v.Load() != tt.want {
			t.Errorf("storeMax(%d) left %d, want %d", tt.n, v.Load(), tt.want)
		}
	}
}

func TestReadManifestDir(t *testing.T) {
	fsys := denyFS{FS: mapFS(map[string]string{
		"d/b.yaml":          "b\n",
		"d/a.yaml":          "a\n",
		"d/.x.yaml":         "hidden\n",
		"d/empty.yaml":      "\n \n",
		"d/workload/w.yaml": "w\n",
		"d/sub/s.yaml":      "s\n",
		"locked/secret/a":   "a\n",
		"locked/ok.yaml":    "ok\n",
	}), denied: "locked/secret"}
	d, err := ReadManifestDir(fsys, "d")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Names(), []string{"a.yaml", "b.yaml"}) || d.Path != "d" || string(d.Files[0].Data) != "a\n" || d.Files[0].Path != "d/a.yaml" {
		t.Errorf("ReadManifestDir(d) = %q at %q", d.Names(), d.Path)
	}
	if d.Workload == nil || !slices.Equal(d.Workload.Names(), []string{"w.yaml"}) {
		t.Errorf("workload = %+v, want [w.yaml]", d.Workload)
	}
	for _, tt := range []struct{ dir, want string }{
		{dir: "nope", want: "nope does not exist"},
		{dir: "d/a.yaml", want: "d/a.yaml"},
	} {
		if _, err := ReadManifestDir(fsys, tt.dir); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadManifestDir(%q) error = %v, want it to mention %q", tt.dir, err, tt.want)
		}
	}
	// A sub-directory other than workload is skipped without being read.
	if d, err := ReadManifestDir(fsys, "locked"); err != nil || !slices.Equal(d.Names(), []string{"ok.yaml"}) {
		t.Errorf("ReadManifestDir(locked) = %v, %v; want [ok.yaml]", d, err)
	}
}

// A file named on its own must define a site, however often and in
// whatever order the paths name it: naming one file twice used to clear
// the flag of the file named between (the flag went to the last file
// added, which was that other one).
func TestNamedFilesKeepTheirFlag(t *testing.T) {
	fsys := fstest.MapFS{
		"a.yaml":    {Data: []byte(siteFile("alpha"))},
		"cm.yaml":   {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")},
		"d/b.yaml":  {Data: []byte(siteFile("bravo"))},
		"d/cm.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n")},
	}
	for _, paths := range [][]string{
		{"a.yaml", "cm.yaml", "a.yaml"},
		{"d", "d/cm.yaml"},           // found by the walk first, then named
		{"d/cm.yaml", "d", "a.yaml"}, // named first, then walked
	} {
		fleet, err := Load(context.Background(), fsys, paths)
		if err != nil {
			t.Fatal(err)
		}
		var noSite []string
		for _, p := range fleet.Problems {
			if strings.Contains(p.Message, "no SiteConfig or ClusterInstance document") {
				noSite = append(noSite, p.Pos.File)
			}
		}
		if len(noSite) != 1 || !strings.HasSuffix(noSite[0], "cm.yaml") {
			t.Errorf("%v: files said to define no site: %v (problems %v); want the ConfigMap file named", paths, noSite, fleet.Problems)
		}
	}
}

// The SiteConfig files a kustomization lists under generators: must each
// define a site, and are read as files a listing gave: the build has just
// read each as a regular file.
func TestGeneratorFilesAreNamedAndListed(t *testing.T) {
	fsys := fstest.MapFS{
		"kz/kustomization.yaml": {Data: []byte("generators: [a.yaml, b.yaml]\n")},
		"kz/a.yaml":             {Data: []byte(siteFile("alpha"))},
		"kz/b.yaml":             {Data: []byte(siteFile("bravo"))},
	}
	l := newLoader(context.Background(), fsys, []string{"kz"}, nil)
	var got []string
	for _, c := range l.files {
		got = append(got, fmt.Sprintf("%s named=%t listed=%t", c.path, c.named, c.listed))
	}
	want := []string{"kz/a.yaml named=true listed=true", "kz/b.yaml named=true listed=true"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("candidates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
