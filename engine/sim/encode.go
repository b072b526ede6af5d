package sim

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
)

// encodeParallelMin is the number of sites from which a commit encodes
// their states on every core: below it, starting goroutines costs more
// than it saves.
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
	workers := min(runtime.GOMAXPROCS(0), len(sites)/encodeParallelMin)
	if workers <= 1 {
		for i := range sites {
			encode(i)
		}
	} else {
		var wg sync.WaitGroup
		for k := range workers {
			wg.Go(func() {
				for i := k; i < len(sites); i += workers {
					encode(i)
				}
			})
		}
		wg.Wait()
	}
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
