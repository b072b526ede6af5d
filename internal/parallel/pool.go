package parallel

import "runtime"

// Pool runs functions on a fixed set of long-lived goroutines. Work that
// recurses deeply (the policy evaluator) belongs there rather than on a
// goroutine started per item: a new goroutine's stack grows anew, copy by
// copy, to the depth the work reaches, every time.
type Pool struct {
	jobs chan func()
}

// NewPool starts a pool of GOMAXPROCS goroutines. Close stops them.
func NewPool() *Pool {
	p := &Pool{jobs: make(chan func())}
	for range runtime.GOMAXPROCS(0) {
		go func() {
			for job := range p.jobs {
				job()
			}
		}()
	}
	return p
}

// Do runs f on one of the pool's goroutines and returns when f has. It
// waits for a free goroutine: callers beyond the pool's size queue up.
func (p *Pool) Do(f func()) {
	done := make(chan struct{})
	p.jobs <- func() {
		defer close(done)
		f()
	}
	<-done
}

// Close stops the pool's goroutines once the jobs under way are done. Do
// must not be called after Close.
func (p *Pool) Close() { close(p.jobs) }
