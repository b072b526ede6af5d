package sim

import (
	"container/heap"
	"time"
)

// queue is the engine's event queue: every site's pending timers, earliest
// first. Entries for timers a site has since cancelled or replaced stay in
// the heap and are skipped when popped (the site no longer holds them).
type queue struct{ h entries }

type entry struct {
	at   int64 // virtual time, UnixNano
	site *site
	id   uint64
}

type entries []entry

func (h entries) Len() int { return len(h) }
func (h entries) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.at != b.at {
		return a.at < b.at
	}
	if a.site != b.site {
		return a.site.st.Name < b.site.st.Name
	}
	return a.id < b.id
}
func (h entries) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *entries) Push(x any)   { *h = append(*h, x.(entry)) }
func (h *entries) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func (q *queue) push(s *site, t timer) {
	heap.Push(&q.h, entry{at: t.At.UnixNano(), site: s, id: t.ID})
}

// peek returns the earliest entry's time, or false when empty.
func (q *queue) peek() (time.Time, bool) {
	if len(q.h) == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, q.h[0].at).UTC(), true
}

func (q *queue) pop() entry { return heap.Pop(&q.h).(entry) }

func (q *queue) len() int { return len(q.h) }
