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
//
// It keeps at most maxRememberedStrings strings of at most
// maxRememberedBytes in all, and forgets them all when full: strings a
// fleet no longer has (a long-running loop renders many revisions), or
// met once (a template's output for one site), make room for those met
// now, and a large string is not kept for the life of the process.
var blockStyles = styleMemo{maxStrings: maxRememberedStrings, maxBytes: maxRememberedBytes}

// minRemembered is the length from which a string's style is remembered:
// below it, analyzeBlock costs about what a lookup does.
const (
	minRemembered        = 512
	maxRememberedStrings = 1024
	maxRememberedBytes   = 8 << 20
)

type styleMemo struct {
	entries              sync.Map // *byte -> styleEntry
	strings, bytes       atomic.Int64
	maxStrings, maxBytes int64
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

// put remembers the style of s, first forgetting every string if there
// is no room for it. A string over a quarter of the room is not kept.
func (m *styleMemo) put(s string, st style) {
	size := int64(len(s))
	if size > m.maxBytes/4 {
		return
	}
	if m.strings.Load() >= m.maxStrings || m.bytes.Load()+size > m.maxBytes {
		// Concurrent puts may each clear, or add an entry or two past
		// the bounds meanwhile: the counts are kept loosely, never far.
		m.entries.Clear()
		m.strings.Store(0)
		m.bytes.Store(0)
	}
	if _, loaded := m.entries.LoadOrStore(unsafe.StringData(s), styleEntry{s, st}); !loaded {
		m.strings.Add(1)
		m.bytes.Add(size)
	}
}
