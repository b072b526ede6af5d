package reconciler

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

// TestAppendStateMatchesJSON checks that the state file saveState encodes
// by hand is the one encoding/json gives, byte for byte, names and values
// that need escaping included.
func TestAppendStateMatchesJSON(t *testing.T) {
	tests := []struct {
		name     string
		revision string
		sites    map[string]*record
	}{
		{name: "no sites", revision: "abc"},
		{name: "empty revision", sites: map[string]*record{"a": {hash: "h"}}},
		{name: "fields left out when empty", revision: "r1", sites: map[string]*record{
			"sno-1": {hash: "h1", applied: "r1", observed: "r1"},
			"sno-2": {observed: "r0"},
			"sno-0": {},
		}},
		{name: "names that need escaping", revision: "r<2>", sites: map[string]*record{
			`quote"d`:     {hash: `back\slash`},
			"tab\tname":   {applied: "a&b"},
			"ünïcode":     {observed: "\u2028"},
			"del\x7fname": {hash: "x"},
			"plain":       {hash: "y"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := savedState{Version: stateVersion, Revision: tt.revision, Sites: map[string]savedSite{}}
			for name, r := range tt.sites {
				want.Sites[name] = savedSite{Hash: r.hash, Applied: r.applied, Observed: r.observed}
			}
			wantData, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			names := slices.Sorted(maps.Keys(tt.sites))
			// Encoded twice into one buffer, as saveState reuses it.
			buf := appendState(nil, "old", names, tt.sites)
			got := appendState(buf[:0], tt.revision, names, tt.sites)
			if string(got) != string(wantData) {
				t.Errorf("appendState:\n got %s\nwant %s", got, wantData)
			}
		})
	}
}
