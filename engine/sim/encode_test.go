package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"
)

// A commit of many sites, encoded on every core, writes each site's state
// exactly as encoding it alone does, in the sites' order, with the desired
// state only where it changed.
func TestEncodeWritesManySites(t *testing.T) {
	e := newStepped(t, Options{})
	const n = 3 * encodeParallelMin
	for i := range n {
		apply(t, e, newSite(fmt.Sprintf("enc-%03d", i), 1, 0).bundle(), "r1")
	}
	if err := e.Advance(context.Background(), 20*time.Minute); err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var sites []*site
	for _, s := range e.sites {
		sites = append(sites, s)
	}
	sort.Slice(sites, func(i, j int) bool { return sites[i].st.Name < sites[j].st.Name })
	for i, s := range sites {
		s.desiredDirty = i%3 == 0
	}
	writes, err := encodeWrites(sites)
	if err != nil {
		t.Fatal(err)
	}
	if len(writes) != n {
		t.Fatalf("%d writes for %d sites", len(writes), n)
	}
	for i, s := range sites {
		w := writes[i]
		state := *s.st
		state.Desired = nil
		want, _ := json.Marshal(&state)
		if w.Name != s.st.Name || !bytes.Equal(w.State, want) {
			t.Fatalf("write %d: %s, %d bytes; want %s, %d bytes", i, w.Name, len(w.State), s.st.Name, len(want))
		}
		wantDesired := []byte(nil)
		if i%3 == 0 {
			wantDesired, _ = json.Marshal(s.st.Desired)
		}
		if !bytes.Equal(w.Desired, wantDesired) {
			t.Errorf("%s: desired state written %v, want %v", s.st.Name, w.Desired != nil, wantDesired != nil)
		}
		if s.desiredDirty {
			t.Errorf("%s: still marked to write its desired state", s.st.Name)
		}
	}
}
