package convert

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/siteops/siteops/sites"
)

// loadSites loads every site of an in-memory tree; the main file is
// site.yaml. It fails the test on any load error.
func loadSites(t *testing.T, files map[string]string) []*sites.Site {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, content := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(content)}
	}
	fleet, err := sites.Load(context.Background(), fsys, []string{"site.yaml"}, sites.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	if fleet.Problems.HasErrors() {
		t.Fatalf("the test input does not load: %v", fleet.Problems)
	}
	return fleet.Sites
}

// loadOne loads a SiteConfig with one cluster.
func loadOne(t *testing.T, files map[string]string) *sites.Site {
	t.Helper()
	ss := loadSites(t, files)
	if len(ss) != 1 {
		t.Fatalf("got %d sites, want 1", len(ss))
	}
	return ss[0]
}

var pathSegment = regexp.MustCompile(`([^.\[\]]+)|\[(\d+)\]`)

// get reads a value of a converted document by a path such as
// spec.nodes[0].role; ok is false when it is not there.
func get(doc map[string]any, path string) (v any, ok bool) {
	v = doc
	for _, m := range pathSegment.FindAllStringSubmatch(path, -1) {
		switch {
		case m[1] != "":
			obj, isMap := v.(map[string]any)
			if !isMap {
				return nil, false
			}
			if v, ok = obj[m[1]]; !ok {
				return nil, false
			}
		default:
			i, _ := strconv.Atoi(m[2])
			list, isList := v.([]any)
			if !isList || i >= len(list) {
				return nil, false
			}
			v = list[i]
		}
	}
	return v, true
}

// posOf returns the position of the first line of text that contains
// marker: where a note about that line must point. It is worked out from
// the text itself, independently of the sites decoder.
func posOf(t *testing.T, file, text, marker string) sites.Position {
	t.Helper()
	for i, line := range strings.Split(text, "\n") {
		if col := strings.Index(line, marker); col >= 0 {
			return sites.Position{File: file, Line: i + 1, Column: col + 1}
		}
	}
	t.Fatalf("marker %q is not in the input", marker)
	return sites.Position{}
}

// siteConfig builds a SiteConfig with one cluster from pieces; each piece
// is indented for its place.
type siteConfig struct {
	version string // v1 when empty
	site    string // extra site-level keys, indented 2
	cluster string // extra cluster keys, indented 6
	nodes   string // the nodes list items, indented 8; one master when empty
}

const defaultNodes = `        - hostName: n0
          bmcAddress: redfish-virtualmedia+https://192.0.2.10/redfish/v1/Systems/1
          bmcCredentialsName:
            name: n0-bmc
          bootMACAddress: "02:00:00:00:00:01"
`

func (s siteConfig) String() string {
	version := s.version
	if version == "" {
		version = "v1"
	}
	nodes := s.nodes
	if nodes == "" {
		nodes = defaultNodes
	}
	return fmt.Sprintf(`apiVersion: ran.openshift.io/%s
kind: SiteConfig
metadata:
  name: test-site
spec:
  baseDomain: example.com
  pullSecretRef:
    name: pull
  clusterImageSetNameRef: img-4.20
  sshPublicKey: ssh-ed25519 AAAA test
%s  clusters:
    - clusterName: c1
%s      nodes:
%s`, version, s.site, s.cluster, nodes)
}

// node returns one node list item with extra keys (indented 10).
func node(name, mac, role, extra string) string {
	r := ""
	if role != "" {
		r = "          role: " + role + "\n"
	}
	return fmt.Sprintf(`        - hostName: %s
%s          bmcAddress: redfish-virtualmedia+https://192.0.2.10/redfish/v1/Systems/%s
          bmcCredentialsName:
            name: %s-bmc
          bootMACAddress: "%s"
%s`, name, r, name, name, mac, extra)
}
