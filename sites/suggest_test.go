package sites

import (
	"reflect"
	"testing"
)

func TestSuggest(t *testing.T) {
	tests := []struct {
		name       string
		key        string
		candidates []string
		want       string
	}{
		{name: "one letter missing", key: "bmcAdress", candidates: []string{"bmcAddress", "bootMACAddress", "bootMode"}, want: "bmcAddress"},
		{name: "case only", key: "clustername", candidates: []string{"clusterNetwork", "clusterName"}, want: "clusterName"},
		{name: "closest wins over first", key: "nodess", candidates: []string{"node", "nodes"}, want: "nodes"},
		{name: "a tie goes to the first", key: "bat", candidates: []string{"cat", "bar"}, want: "cat"},
		{name: "nothing close", key: "flavourOfTheDay", candidates: []string{"apiVIP", "nodes", "clusterName"}, want: ""},
		{name: "no candidates", key: "nodes", candidates: nil, want: ""},
		{name: "empty key", key: "", candidates: []string{"url", "name"}, want: ""},
		// The limit is len(key)/3+2, exclusive.
		{name: "short key at the limit", key: "ab", candidates: []string{"abcd"}, want: ""},
		{name: "short key under the limit", key: "abc", candidates: []string{"abcde"}, want: "abcde"},
		{name: "long key at the limit", key: "aaaaaaaaa", candidates: []string{"aaaaaaaaabbbbb"}, want: ""},
		{name: "long key under the limit", key: "aaaaaaaaa", candidates: []string{"aaaaaaaaabbbb"}, want: "aaaaaaaaabbbb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := suggest(tt.key, tt.candidates); got != tt.want {
				t.Errorf("suggest(%q, %q) = %q, want %q", tt.key, tt.candidates, got, tt.want)
			}
		})
	}
}

// TestSuggestFieldNames checks the hints against the real field names of
// each level, with mistakes people make.
func TestSuggestFieldNames(t *testing.T) {
	tests := []struct {
		name  string
		level any
		key   string
		want  string
	}{
		{name: "node bmcAdress", level: Nodes{}, key: "bmcAdress", want: "bmcAddress"},
		{name: "node hostname", level: Nodes{}, key: "hostname", want: "hostName"},
		{name: "node bootMacAddress", level: Nodes{}, key: "bootMacAddress", want: "bootMACAddress"},
		{name: "node ironicInspection", level: Nodes{}, key: "ironicInspection", want: "ironicInspect"},
		{name: "cluster apiVIPS prefers the exact letters", level: Clusters{}, key: "apiVIPS", want: "apiVIPs"},
		{name: "cluster networktype", level: Clusters{}, key: "networktype", want: "networkType"},
		{name: "cluster cpuPartitioning", level: Clusters{}, key: "cpuPartitioning", want: "cpuPartitioningMode"},
		{name: "cluster searchPaths belongs one level down", level: Clusters{}, key: "searchPaths", want: ""},
		{name: "spec clusterImageSetName", level: Spec{}, key: "clusterImageSetName", want: "clusterImageSetNameRef"},
		{name: "spec cluster", level: Spec{}, key: "cluster", want: "clusters"},
		{name: "partition mountPoint", level: Partitions{}, key: "mountPoint", want: "mount_point"},
		{name: "top apiversion", level: SiteConfig{}, key: "apiversion", want: "apiVersion"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			names := fieldsOf(reflect.TypeOf(tt.level)).names
			if got := suggest(tt.key, names); got != tt.want {
				t.Errorf("suggest(%q) = %q, want %q (candidates %q)", tt.key, got, tt.want, names)
			}
		})
	}
}

func TestFieldsOfSkipsUntaggedFields(t *testing.T) {
	f := fieldsOf(reflect.TypeOf(Clusters{}))
	for _, internal := range []string{"NumMasters", "numMasters", "clusterType", "ClusterType", "-", ""} {
		if _, ok := f.index[internal]; ok {
			t.Errorf("fieldsOf(Clusters) has %q, a field that is not read from files", internal)
		}
	}
	if i, ok := f.index["clusterName"]; !ok || reflect.TypeOf(Clusters{}).Field(i).Name != "ClusterName" {
		t.Errorf("clusterName maps to field %d (%v), want ClusterName", i, ok)
	}
	for i := 1; i < len(f.names); i++ {
		if f.names[i-1] >= f.names[i] {
			t.Errorf("names not sorted: %q before %q", f.names[i-1], f.names[i])
		}
	}
	if fieldsOf(reflect.TypeOf(Clusters{})) != f {
		t.Errorf("fieldsOf does not cache")
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{name: "both empty", a: "", b: "", want: 0},
		{name: "equal", a: "abc", b: "abc", want: 0},
		{name: "to empty", a: "abc", b: "", want: 3},
		{name: "from empty", a: "", b: "abc", want: 3},
		{name: "classic", a: "kitten", b: "sitting", want: 3},
		{name: "insert and delete", a: "flaw", b: "lawn", want: 2},
		{name: "transposition is two edits", a: "ab", b: "ba", want: 2},
		{name: "case counts", a: "A", b: "a", want: 1},
		{name: "missing letter", a: "bmcadress", b: "bmcaddress", want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := editDistance(tt.a, tt.b); got != tt.want {
				t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := editDistance(tt.b, tt.a); got != tt.want {
				t.Errorf("editDistance(%q, %q) = %d, want %d (not symmetric)", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

func TestLower(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{name: "ascii", in: "MiXeD-123_x", want: "mixed-123_x"},
		{name: "non-ascii left alone", in: "ÄBc", want: "Äbc"},
		{name: "empty", in: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lower(tt.in); got != tt.want {
				t.Errorf("lower(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
