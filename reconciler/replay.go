package reconciler

import (
	"sync"
	"time"
)

// replayCache remembers the signed requests already accepted, by key,
// for a while, so that one captured and sent again is recognised. It
// holds at most max keys: the oldest go first.
type replayCache struct {
	mu    sync.Mutex
	ttl   time.Duration
	max   int
	seen  map[string]time.Time
	order []seenKey // in the order they came
}

type seenKey struct {
	key string
	at  time.Time
}

func newReplayCache(ttl time.Duration, max int) *replayCache {
	return &replayCache{ttl: ttl, max: max, seen: map[string]time.Time{}}
}

// first records the keys (empty ones are ignored) at now and reports
// whether none of them was seen within the time to live.
func (c *replayCache) first(now time.Time, keys ...string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.order) > 0 && (len(c.order) > c.max || now.Sub(c.order[0].at) >= c.ttl) {
		old := c.order[0]
		if c.seen[old.key] == old.at {
			delete(c.seen, old.key)
		}
		c.order = c.order[1:]
	}
	for _, k := range keys {
		if t, ok := c.seen[k]; ok && k != "" && now.Sub(t) < c.ttl {
			return false
		}
	}
	for _, k := range keys {
		if k != "" {
			c.seen[k] = now
			c.order = append(c.order, seenKey{k, now})
		}
	}
	return true
}
