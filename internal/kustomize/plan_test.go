package kustomize

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/api/provider"

	"github.com/siteops/siteops/internal/safefs"
)

// TestPathOnlyEntriesAreNeverInline holds pathOnly to what it stands in
// for: every entry it takes for a path is one kustomize's resource
// factory fails to read as objects. The entries are every string of up
// to four characters over letters that spell null, digits and the path
// punctuation, and the entries that YAML reads as no objects.
func TestPathOnlyEntriesAreNeverInline(t *testing.T) {
	rf := provider.NewDepProvider().GetResourceFactory()
	const alphabet = "nulNUL0./-_aZ"
	entries := []string{"", "null", "Null", "NULL", "~", "---", "--- x", "...", "....", "- x", "#x", "&a", "{}", "[]"}
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			s := prefix + string(c)
			entries = append(entries, s)
			grow(s, n-1)
		}
	}
	grow("", 4)
	took := 0
	for _, raw := range entries {
		if !pathOnly(raw) {
			continue
		}
		took++
		if rs, err := rf.SliceFromBytes([]byte(raw)); err == nil {
			t.Errorf("pathOnly(%q) is true, but the factory reads it as %d objects", raw, len(rs))
		}
	}
	if took < len(entries)/2 {
		t.Errorf("pathOnly took %d of %d entries", took, len(entries))
	}
	// The entries of a ZTP kustomization take the fast path.
	for _, raw := range []string{"sno-000001.yaml", "sites/north/site-a.yaml", "../common/site.yml", "./x.yaml", "site_1.yaml"} {
		if !pathOnly(raw) {
			t.Errorf("pathOnly(%q) is false", raw)
		}
	}
	for _, raw := range []string{"null", "---", "...", "-x", "a b", "a:b", "~", "x#y", "https://example.com/x.yaml"} {
		if pathOnly(raw) {
			t.Errorf("pathOnly(%q) is true", raw)
		}
	}
}

func TestQuickSiteConfig(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       bool
	}{
		{"one", "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\nmetadata:\n  name: a\n", true},
		{"header and markers", "# a site\n%YAML 1.2\n---\napiVersion: \"ran.openshift.io/v1\" # v1\nkind: 'SiteConfig'\n...\n", true},
		{"CRLF", "apiVersion: ran.openshift.io/v1\r\nkind: SiteConfig\r\n", true},
		{"a carriage return ends the file", "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\r", true},
		{"a comment after the kind", "apiVersion: ran.openshift.io/v1\nkind: SiteConfig # the site\n", true},
		{"two", "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\n---\nkind: SiteConfig\napiVersion: ran.openshift.io/v2\n", true},
		{"empty document between", "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\n---\n# nothing\n---\napiVersion: ran.openshift.io/v1\nkind: SiteConfig\n", true},
		{"a ConfigMap beside", "apiVersion: ran.openshift.io/v1\nkind: SiteConfig\n---\napiVersion: v1\nkind: ConfigMap\n", false},
		{"another kind", "apiVersion: ran.openshift.io/v1\nkind: SiteConfigList\n", false},
		{"group only", "apiVersion: ran.openshift.io\nkind: SiteConfig\n", false},
		{"indented keys", "spec:\n  apiVersion: ran.openshift.io/v1\n  kind: SiteConfig\n", false},
		{"no kind", "apiVersion: ran.openshift.io/v1\n", false},
		{"nothing", "# only a comment\n", false},
		{"empty", "", false},
	} {
		if got := quickSiteConfig([]byte(tc.data)); got != tc.want {
			t.Errorf("%s: quickSiteConfig = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FuzzPathOnly holds pathOnly to the resource factory on any entry: one
// it takes for a path must be one the factory refuses.
func FuzzPathOnly(f *testing.F) {
	for _, s := range []string{"sno-000001.yaml", "null", "---", "...", "a/b", "-x", "~", "NULL", "../x.yaml"} {
		f.Add(s)
	}
	rf := provider.NewDepProvider().GetResourceFactory()
	f.Fuzz(func(t *testing.T, raw string) {
		if !pathOnly(raw) {
			return
		}
		if rs, err := rf.SliceFromBytes([]byte(raw)); err == nil {
			t.Errorf("pathOnly(%q) is true, but the factory reads it as %d objects", raw, len(rs))
		}
	})
}

// TestGeneratorThatIsNotARegularFile holds what Result promises of its
// SiteConfig generators: each was read as a regular file. A generators
// entry that is a named pipe fails the build, without waiting for a
// writer, on os.Root's file system and on safefs's.
func TestGeneratorThatIsNotARegularFile(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"fleet/kustomization.yaml": kust("generators:\n- site-a.yaml\n- pipe.yaml\n"),
		"fleet/site-a.yaml":        siteConfig("site-a"),
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "fleet", "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	sroot, err := safefs.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sroot.Close()
	for name, fsys := range map[string]fs.FS{"os.Root": rootFS(t, dir), "safefs": sroot.FS()} {
		t.Run(name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := Build(context.Background(), fsys, "fleet")
				done <- err
			}()
			select {
			case err := <-done:
				// The error says where: the kustomization's file and
				// line, the field and the entry.
				if err == nil || !strings.Contains(err.Error(), "named pipe") ||
					!strings.Contains(err.Error(), `fleet/kustomization.yaml:5:`) || !strings.Contains(err.Error(), `generators entry "pipe.yaml"`) {
					t.Errorf("Build: %v, want an error about the named pipe at its generators entry", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("Build is still waiting on the named pipe after 30 s")
			}
		})
	}
}
