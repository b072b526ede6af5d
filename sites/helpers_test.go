package sites

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Helpers shared by the tests of this package: they build SiteConfig text,
// find where a piece of it is, and pick problems and sites out of results.

// testFile is the name the decode tests give their input.
const testFile = "fleet/site.yaml"

// imageSetSpec is a spec line that gives every cluster an image set.
const imageSetSpec = "  clusterImageSetNameRef: img-4.20\n"

// siteConfigText returns a SiteConfig named site-a. spec holds extra lines
// of spec (indented by two spaces); clusters are entries made by cluster.
func siteConfigText(apiVersion, spec string, clusters ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: %s\nkind: SiteConfig\nmetadata:\n  name: site-a\nspec:\n", apiVersion)
	b.WriteString("  baseDomain: example.com\n  pullSecretRef:\n    name: pull-secret\n")
	b.WriteString(spec)
	b.WriteString("  clusters:\n")
	for _, c := range clusters {
		b.WriteString(c)
	}
	return b.String()
}

// v1Doc is a ran.openshift.io/v1 SiteConfig with a site-level image set.
func v1Doc(clusters ...string) string {
	return siteConfigText("ran.openshift.io/v1", imageSetSpec, clusters...)
}

// cluster returns one entry of spec.clusters: clusterName (left out when
// name is empty) followed by body, whose lines are written as if the
// cluster's keys started at column 1.
func cluster(name, body string) string {
	var b strings.Builder
	lead := "  - "
	if name != "" {
		fmt.Fprintf(&b, "%sclusterName: %s\n", lead, name)
		lead = "    "
	}
	for line := range strings.Lines(body) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		b.WriteString(lead)
		b.WriteString(line)
		lead = "    "
	}
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteString("\n")
	}
	return b.String()
}

// oneNode is a nodes list with a single master.
func oneNode(host string) string {
	return "nodes:\n- hostName: " + host + "\n  bmcAddress: ipmi://192.0.2.1\n"
}

// goodCluster is a cluster with nothing wrong in it.
func goodCluster(name string) string { return cluster(name, oneNode(name+"-n0")) }

// locate returns the position, in testFile, of the first needle that comes
// after the unique occurrence of after ("" for the start of src).
func locate(t *testing.T, src, after, needle string) Position {
	t.Helper()
	return locateIn(t, testFile, src, after, needle)
}

func locateIn(t *testing.T, file, src, after, needle string) Position {
	t.Helper()
	start := 0
	if after != "" {
		if strings.Count(src, after) != 1 {
			t.Fatalf("locate: %q occurs %d times in the input, want once", after, strings.Count(src, after))
		}
		start = strings.Index(src, after)
	}
	i := strings.Index(src[start:], needle)
	if i < 0 {
		t.Fatalf("locate: %q not found after %q", needle, after)
	}
	i += start
	line := strings.Count(src[:i], "\n") + 1
	col := i - (strings.LastIndex(src[:i], "\n") + 1) + 1
	return Position{File: file, Line: line, Column: col}
}

// decodeText decodes src as testFile with default options.
func decodeText(t *testing.T, src string) ([]*Site, Problems) {
	t.Helper()
	return decodeFile(testFile, []byte(src), decodeOptions{})
}

// mustDecode decodes src and fails on any problem, warnings included.
func mustDecode(t *testing.T, src string) []*Site {
	t.Helper()
	sites, problems := decodeText(t, src)
	if len(problems) > 0 {
		t.Fatalf("unexpected problems:\n%s", problemList(problems))
	}
	return sites
}

func problemList(ps Problems) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "  %s [%s]\n", p.Error(), p.Severity)
	}
	return b.String()
}

func siteNames(sites []*Site) []string {
	names := make([]string, len(sites))
	for i, s := range sites {
		names[i] = s.Name
	}
	return names
}

// wantSites fails unless the sites are exactly names, in order.
func wantSites(t *testing.T, sites []*Site, names ...string) {
	t.Helper()
	if got := siteNames(sites); !slices.Equal(got, names) {
		t.Errorf("sites = %q, want %q", got, names)
	}
}

func siteNamed(t *testing.T, sites []*Site, name string) *Site {
	t.Helper()
	for _, s := range sites {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no site %q among %q", name, siteNames(sites))
	return nil
}

// only returns the problems of one severity.
func only(ps Problems, sev Severity) Problems {
	var out Problems
	for _, p := range ps {
		if p.Severity == sev {
			out = append(out, p)
		}
	}
	return out
}

// oneProblem fails unless exactly one problem has the given severity, and
// returns it.
func oneProblem(t *testing.T, ps Problems, sev Severity) Problem {
	t.Helper()
	got := only(ps, sev)
	if len(got) != 1 {
		t.Fatalf("got %d %s problems, want 1; all problems:\n%s", len(got), sev, problemList(ps))
	}
	return got[0]
}

// problemMatching returns the one problem whose Error() holds every part.
func problemMatching(t *testing.T, ps Problems, parts ...string) Problem {
	t.Helper()
	var found []Problem
	for _, p := range ps {
		text := p.Error()
		ok := true
		for _, part := range parts {
			if !strings.Contains(text, part) {
				ok = false
				break
			}
		}
		if ok {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d problems contain %q, want 1; all problems:\n%s", len(found), parts, problemList(ps))
	}
	return found[0]
}

// wantContains fails unless s holds every part.
func wantContains(t *testing.T, what, s string, parts ...string) {
	t.Helper()
	for _, part := range parts {
		if !strings.Contains(s, part) {
			t.Errorf("%s = %q, want it to contain %q", what, s, part)
		}
	}
}

// wantAllSite fails unless every problem names site: a problem must stay
// with the cluster it is in.
func wantAllSite(t *testing.T, ps Problems, site string) {
	t.Helper()
	if len(ps) == 0 {
		t.Fatalf("no problems, want some for site %q", site)
	}
	for _, p := range ps {
		if p.Site != site {
			t.Errorf("problem names site %q, want %q: %s", p.Site, site, p.Error())
		}
	}
}
