package gen

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateUnique checks that MACs, node IPs, VIPs, BMC addresses and
// host names never repeat across a fleet large enough to wrap every octet
// of the address plan at least once, in both formats.
func TestGenerateUnique(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1200 files")
	}
	for _, format := range Formats() {
		t.Run(string(format), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			st, err := Generate(dir, Config{Sites: 1200, Shape: ShapeMixed, Layout: LayoutFiles, Format: format, Manifests: 3, Seed: 9})
			if err != nil {
				t.Fatal(err)
			}
			if st.SNO == 0 || st.HA == 0 || st.SNO+st.HA != 1200 {
				t.Errorf("mixed fleet has %d sno and %d ha clusters", st.SNO, st.HA)
			}
			// Keys whose values must be unique fleet-wide, with any list
			// marker removed. A node's boot MAC is repeated once in its
			// nodeNetwork interfaces, so count per file.
			unique := []string{"bootMACAddress:", "bmcAddress:", "hostName:", "ip:", "clusterName:", "cidr: 10.0."}
			seen := map[string]string{}
			for _, f := range st.Files {
				fh, err := os.Open(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				sc := bufio.NewScanner(fh)
				for sc.Scan() {
					line := strings.TrimPrefix(strings.TrimSpace(sc.Text()), "- ")
					for _, k := range unique {
						if strings.HasPrefix(line, k) {
							if prev, ok := seen[line]; ok {
								t.Errorf("%s: %q already in %s", f, line, prev)
							}
							seen[line] = f
						}
					}
				}
				fh.Close()
			}
			// Per cluster its name and machine network, per node its host
			// name, boot MAC, BMC and IP.
			if got, want := len(seen), 2*1200+4*st.Nodes; got != want {
				t.Errorf("%d unique values, want %d", got, want)
			}
			if got, want := len(st.Manifests), 3; got != want {
				t.Errorf("wrote %d manifests, want %d", got, want)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{
		{Sites: 0, Shape: ShapeSNO},
		{Sites: MaxSites + 1, Shape: ShapeSNO},
		{Sites: 1, Shape: "tiny"},
		{Sites: 1, Shape: ShapeHA, Manifests: -1},
	} {
		if err := c.validate(); err == nil {
			t.Errorf("validate(%+v) = nil, want an error", c)
		}
	}
}
