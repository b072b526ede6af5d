package render

import (
	"sync"
	"sync/atomic"
)

// memo remembers the results of a pure function for the arguments a fleet
// repeats: every site of a fleet often has the same install-config
// overrides, and an extra-manifest template that reads only .Role renders
// the same text for every site. It is safe for concurrent use and keeps at
// most max results, the first ones met: a fleet whose values all differ
// costs a lookup per call and a bounded amount of memory.
type memo[K comparable, V any] struct {
	results sync.Map // K -> V
	kept    atomic.Int64
	max     int64
}

func newMemo[K comparable, V any](max int64) *memo[K, V] { return &memo[K, V]{max: max} }

// maxMemoText is the longest text a memo's key may hold: a memo keeps
// small values many sites repeat, not whatever a file holds.
const maxMemoText = 16 << 10

// get returns f(k), computed once while k is remembered.
func (m *memo[K, V]) get(k K, f func() V) V {
	if v, ok := m.lookup(k); ok {
		return v
	}
	v := f()
	m.put(k, v)
	return v
}

// lookup returns the remembered result for k.
func (m *memo[K, V]) lookup(k K) (V, bool) {
	if v, ok := m.results.Load(k); ok {
		return v.(V), true
	}
	var zero V
	return zero, false
}

// put remembers v for k while the memo is not full.
func (m *memo[K, V]) put(k K, v V) {
	if m.full() {
		return
	}
	if _, loaded := m.results.LoadOrStore(k, v); !loaded {
		m.kept.Add(1)
	}
}

// full reports whether the memo keeps no more results: a caller may then
// compute a result where it is needed rather than as a value to keep.
func (m *memo[K, V]) full() bool { return m.kept.Load() >= m.max }
