package sim

import (
	"encoding/json"
	"fmt"

	"github.com/siteops/siteops/internal/parallel"
)

// encodeParallelMin is the number of sites each goroutine must have for
// a commit to encode their states on more than one core (parallel.Each).
const encodeParallelMin = 64

// encodeWrites encodes the states of the sites a commit writes, and their
// desired states where they changed, in the sites' order. The engine's
// lock is held, so nothing changes the states meanwhile; encoding only
// reads them, so it runs on every core for large commits (at --speed max
// a commit can hold thousands of sites, and the simulation waits for it).
func encodeWrites(sites []*site) ([]siteWrite, error) {
	writes := make([]siteWrite, len(sites))
	errs := make([]error, len(sites))
	encode := func(i int) {
		s := sites[i]
		w := siteWrite{Name: s.st.Name}
		state := *s.st
		state.Desired = nil
		var err error
		if w.State, err = json.Marshal(&state); err == nil && s.desiredDirty {
			w.Desired, err = json.Marshal(s.st.Desired)
		}
		writes[i], errs[i] = w, err
	}
	parallel.Each(len(sites), encodeParallelMin, encode)
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("encode site %s: %w", sites[i].st.Name, err)
		}
	}
	for _, s := range sites {
		s.desiredDirty = false
	}
	return writes, nil
}
