package yamlenc

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// blockStyles remembers the style of long multi-line strings by the
// address of their bytes. The extra manifests a fleet shares are the same
// strings in every site's ConfigMap: twenty kilobytes per site that
// analyzeBlock read again for each. An entry keeps its string, so the
// bytes at that address cannot be freed and reused for another string
// while it is remembered; a string is found only if it is the same
// string (address and length), never by its content.
var blockStyles = styleMemo{max: 1024}

// minRemembered is the length from which a string's style is remembered:
// below it, analyzeBlock costs about what a lookup does.
const minRemembered = 512

type styleMemo struct {
	entries sync.Map // *byte -> styleEntry
	kept    atomic.Int64
	max     int64
}

type styleEntry struct {
	s  string
	st style
}

func (m *styleMemo) lookup(s string) (style, bool) {
	v, ok := m.entries.Load(unsafe.StringData(s))
	if !ok {
		return 0, false
	}
	e := v.(styleEntry)
	if len(e.s) != len(s) {
		return 0, false
	}
	return e.st, true
}

// put remembers the style of s while fewer than max are kept.
func (m *styleMemo) put(s string, st style) {
	if m.kept.Load() >= m.max {
		return
	}
	if _, loaded := m.entries.LoadOrStore(unsafe.StringData(s), styleEntry{s, st}); !loaded {
		m.kept.Add(1)
	}
}
