package irvm

import (
	"sync"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/ir"
)

// A function is pure when its value depends on its arguments alone: it
// reads neither input nor data (but through the functions it calls, which
// must be pure too) and calls no non-deterministic built-in. A fleet calls
// such functions with the same few arguments at every site (the same
// install-config override, BMC driver, cluster network), so their values
// are kept from one evaluation to the next, for the prepared query's life.
//
// A value is kept the second time its call is made, so that the values of
// one site (a host name, a MAC) do not fill the table, and the table is
// bounded; a call whose evaluation failed keeps nothing. Only calls whose
// arguments are strings, numbers, booleans or null are kept: a
// collection argument is its caller's, which the table must not hold.
const (
	maxMemo     = 4096
	maxSeenOnce = 1 << 16
	memoShards  = 64
)

// A pure function called with values of each site (a host name) finds
// nothing kept, and looking it up costs more than it saves: after
// memoTrial calls, a function whose calls found a kept value less than
// one time in memoMinHits is no longer looked up.
const (
	memoTrial   = 512
	memoMinHits = 8
)

// memoStats counts the lookups of one function and their hits.
type memoStats struct {
	calls, hits atomic.Int64
	off         atomic.Bool
}

func (m *memoStats) worth() bool { return !m.off.Load() }

func (m *memoStats) count(hit bool) {
	n := m.calls.Add(1)
	if hit {
		m.hits.Add(1)
	}
	if n == memoTrial && m.hits.Load()*memoMinHits < n {
		m.off.Store(true)
	}
}

type memoKey struct {
	fn   int
	hash uint64
}

type memoEntry struct {
	args []*ast.Term
	v    *ast.Term // nil: undefined
}

type memo struct {
	shards [memoShards]memoShard
}

type memoShard struct {
	mu      sync.RWMutex
	entries map[memoKey][]memoEntry
	seen    map[memoKey]struct{}
	n       int
}

// key hashes a call of f with the arguments in the params locals.
func (m *memo) key(f *fn, locals []*ast.Term, params []ir.Local) memoKey {
	h := uint64(f.index) + 1
	for _, p := range params {
		if t := locals[p]; t != nil {
			h = h*1099511628211 + uint64(t.Hash())
		}
	}
	return memoKey{fn: f.index, hash: h}
}

func (m *memo) shard(k memoKey) *memoShard { return &m.shards[k.hash%memoShards] }

// get looks a call up: its key, and its value (nil: undefined) when kept.
func (m *memo) get(f *fn, locals []*ast.Term, params []ir.Local) (memoKey, *ast.Term, bool) {
	k := m.key(f, locals, params)
	s := m.shard(k)
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, e := range s.entries[k] {
		if sameArgs(e.args, locals, params) {
			return k, e.v, true
		}
	}
	return k, nil, false
}

// put keeps the value of a call made for the second time.
func (m *memo) put(k memoKey, f *fn, locals []*ast.Term, params []ir.Local, v *ast.Term) {
	s := m.shard(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[k]; !ok {
		if s.seen == nil || len(s.seen) >= maxSeenOnce/memoShards {
			s.seen = map[memoKey]struct{}{}
		}
		s.seen[k] = struct{}{}
		return
	}
	if s.n >= maxMemo/memoShards {
		return
	}
	for _, e := range s.entries[k] {
		if sameArgs(e.args, locals, params) {
			return
		}
	}
	args := make([]*ast.Term, len(params))
	for i, p := range params {
		args[i] = locals[p]
	}
	if s.entries == nil {
		s.entries = map[memoKey][]memoEntry{}
	}
	s.entries[k] = append(s.entries[k], memoEntry{args: args, v: v})
	s.n++
}

// scalars reports whether every argument is a string, number, boolean
// or null.
func scalars(locals []*ast.Term, params []ir.Local) bool {
	for _, p := range params {
		if t := locals[p]; t == nil || !ast.IsScalar(t.Value) {
			return false
		}
	}
	return true
}

func sameArgs(args, locals []*ast.Term, params []ir.Local) bool {
	for i, p := range params {
		if args[i] == nil || locals[p] == nil || !identical(args[i].Value, locals[p].Value) {
			return false
		}
	}
	return true
}

// identical is equality of scalars that also tells numbers written
// differently apart: 1 == 1.0 in Rego, but json.marshal writes them
// differently, so a value kept for one is not the value for the other.
func identical(a, b ast.Value) bool {
	if n, ok := a.(ast.Number); ok {
		m, ok := b.(ast.Number)
		return ok && n == m
	}
	return a.Compare(b) == 0
}

// markPure sets fn.pure on the functions that are: those that read input
// or data themselves, or call a built-in that is not deterministic, are
// not, nor are those that call them.
func markPure(funcs []*fn) {
	for _, f := range funcs {
		f.pure = !f.readsEnv
	}
	for changed := true; changed; {
		changed = false
		for _, f := range funcs {
			if !f.pure {
				continue
			}
			for _, g := range f.callees {
				if !g.pure {
					f.pure, changed = false, true
					break
				}
			}
		}
	}
}
