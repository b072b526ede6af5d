package policy

import (
	"maps"
	"slices"
	"sync"
)

// Facts keeps the fleet-wide facts of every site (MACs, host names, BMC
// addresses, VIPs, cluster names) from one check to the next, so that a
// check of a few sites is held to the uniqueness rules against the whole
// fleet: the reconcile loop checks only the sites a commit changed, and a
// new site that reuses the MAC of a site no commit touched is caught as
// `siteops check` of the whole tree catches it.
//
// A check with WithFacts builds the fleet index from the sites it checks
// and, of the other sites Facts holds, those that share a value with them:
// the work follows the change, not the fleet (with a user policy that reads
// the fleet index itself, every site Facts holds is given). Then the
// checked sites' facts replace what Facts held of them. Facts is safe for
// concurrent use.
type Facts struct {
	mu    sync.Mutex
	sites map[string][]fact
	// users maps each kind's values to the sites that use them.
	users []map[string][]string
}

// NewFacts returns an empty Facts.
func NewFacts() *Facts {
	f := &Facts{sites: map[string][]fact{}, users: make([]map[string][]string, len(factKinds))}
	for k := range f.users {
		f.users[k] = map[string][]string{}
	}
	return f
}

// WithFacts makes a check read the facts of the sites it does not check
// from f, and keep those of the sites it checks in f.
func WithFacts(f *Facts) CheckOption { return func(o *checkOptions) { o.facts = f } }

// Len is the number of sites f holds.
func (f *Facts) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.sites)
}

// Forget drops the facts of sites that left the fleet.
func (f *Facts) Forget(names ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range names {
		f.forgetLocked(n)
	}
}

func (f *Facts) forgetLocked(site string) {
	for _, ft := range f.sites[site] {
		if ft.key == "" {
			continue
		}
		users := slices.DeleteFunc(f.users[ft.kind][ft.key], func(s string) bool { return s == site })
		if len(users) == 0 {
			delete(f.users[ft.kind], ft.key)
		} else {
			f.users[ft.kind][ft.key] = users
		}
	}
	delete(f.sites, site)
}

// keep replaces what f holds of the checked sites.
func (f *Facts) keep(checked []siteFacts) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, sf := range checked {
		f.forgetLocked(sf.site)
		f.sites[sf.site] = sf.facts
		for _, ft := range sf.facts {
			if ft.key != "" && !slices.Contains(f.users[ft.kind][ft.key], sf.site) {
				f.users[ft.kind][ft.key] = append(f.users[ft.kind][ft.key], sf.site)
			}
		}
	}
}

// others lists the facts of the sites f holds, not among checked, that
// share a value with a checked site (every site f holds when all), and
// the names of every site the index then covers, sorted.
func (f *Facts) others(checked []siteFacts, all bool) ([]siteFacts, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	inRun := make(map[string]bool, len(checked))
	for _, sf := range checked {
		inRun[sf.site] = true
	}
	add := map[string]bool{}
	if all {
		for name := range f.sites {
			if !inRun[name] {
				add[name] = true
			}
		}
	} else {
		for _, sf := range checked {
			for _, ft := range sf.facts {
				if ft.key == "" {
					continue
				}
				for _, user := range f.users[ft.kind][ft.key] {
					if !inRun[user] {
						add[user] = true
					}
				}
			}
		}
	}
	out := make([]siteFacts, 0, len(add))
	for _, name := range slices.Sorted(maps.Keys(add)) {
		out = append(out, siteFacts{site: name, facts: f.sites[name]})
	}
	names := make([]string, 0, len(checked)+len(out))
	for _, sf := range checked {
		names = append(names, sf.site)
	}
	for _, sf := range out {
		names = append(names, sf.site)
	}
	slices.Sort(names)
	return out, names
}
