package hub

import (
	"context"
	"sync"
)

// subscriber delivers site names in the order they first changed since
// the reader last took them; a name changed again before it was read is
// delivered once.
type subscriber struct {
	ch chan string

	mu      sync.Mutex
	queue   []string
	queued  map[string]bool
	wake    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

// Subscribe returns a channel that receives the name of a site each time
// something of it changes on the hub or in the engine, until ctx is done.
func (e *Engine) Subscribe(ctx context.Context) <-chan string {
	s := &subscriber{
		ch:      make(chan string),
		queued:  map[string]bool{},
		wake:    make(chan struct{}, 1),
		stopped: make(chan struct{}),
	}
	e.mu.Lock()
	e.subs[s] = struct{}{}
	e.mu.Unlock()
	go func() {
		select {
		case <-ctx.Done():
		case <-e.ctx.Done():
		}
		e.mu.Lock()
		delete(e.subs, s)
		e.mu.Unlock()
		s.close()
	}()
	go s.run()
	return s.ch
}

func (e *Engine) notify(site string) {
	e.mu.Lock()
	subs := make([]*subscriber, 0, len(e.subs))
	for s := range e.subs {
		subs = append(subs, s)
	}
	e.mu.Unlock()
	for _, s := range subs {
		s.push(site)
	}
}

func (s *subscriber) push(site string) {
	s.mu.Lock()
	if !s.queued[site] {
		s.queued[site] = true
		s.queue = append(s.queue, site)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscriber) close() { s.once.Do(func() { close(s.stopped) }) }

func (s *subscriber) run() {
	defer close(s.ch)
	for {
		s.mu.Lock()
		var next string
		if len(s.queue) > 0 {
			next = s.queue[0]
			s.queue = s.queue[1:]
			delete(s.queued, next)
		}
		s.mu.Unlock()
		if next == "" {
			select {
			case <-s.wake:
				continue
			case <-s.stopped:
				return
			}
		}
		select {
		case s.ch <- next:
		case <-s.stopped:
			return
		}
	}
}
