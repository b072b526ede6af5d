package sim

import (
	"time"
)

// queue is the engine's event queue: every site's pending timers, earliest
// first. Entries for timers a site has since cancelled or replaced stay in
// the heap and are skipped when popped (the site no longer holds them).
//
// It is a binary heap on a typed slice, sifted the way container/heap
// sifts (so entries that tie pop in the same order), without boxing each
// entry in an interface on the way in and out.
type queue struct{ h entries }

type entry struct {
	at   int64 // virtual time, UnixNano
	site *site
	id   uint64
}

type entries []entry

func (h entries) less(i, j int) bool {
	a, b := &h[i], &h[j]
	if a.at != b.at {
		return a.at < b.at
	}
	if a.site != b.site {
		return a.site.st.Name < b.site.st.Name
	}
	return a.id < b.id
}

func (q *queue) push(s *site, t timer) {
	q.h = append(q.h, entry{at: t.At.UnixNano(), site: s, id: t.ID})
	q.up(len(q.h) - 1)
}

// peek returns the earliest entry's time, or false when empty.
func (q *queue) peek() (time.Time, bool) {
	if len(q.h) == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, q.h[0].at).UTC(), true
}

func (q *queue) pop() entry {
	n := len(q.h) - 1
	q.h[0], q.h[n] = q.h[n], q.h[0]
	q.down(0, n)
	e := q.h[n]
	q.h[n] = entry{} // let the site go
	q.h = q.h[:n]
	return e
}

func (q *queue) len() int { return len(q.h) }

// up moves entry j towards the root while it is earlier than its parent.
func (q *queue) up(j int) {
	h := q.h
	for j > 0 {
		parent := (j - 1) / 2
		if !h.less(j, parent) {
			return
		}
		h[parent], h[j] = h[j], h[parent]
		j = parent
	}
}

// down moves entry i towards the leaves of the first n entries while a
// child is earlier, swapping with the earlier child (the left one on a
// tie).
func (q *queue) down(i, n int) {
	h := q.h
	for {
		child := 2*i + 1
		if child >= n {
			return
		}
		if right := child + 1; right < n && h.less(right, child) {
			child = right
		}
		if !h.less(child, i) {
			return
		}
		h[i], h[child] = h[child], h[i]
		i = child
	}
}
