package parallel

// Pool runs functions on a fixed set of long-lived goroutines. Work that
// recurses deeply (the policy evaluator) belongs there rather than on a
// goroutine started per item: a new goroutine's stack grows anew, copy by
// copy, to the depth the work reaches, every time.
type Pool struct {
	jobs chan func()
}

// NewPoolOf starts a pool of n goroutines (at least one). Close stops
// them.
func NewPoolOf(n int) *Pool {
	p := &Pool{jobs: make(chan func())}
	for range max(n, 1) {
		go func() {
			for job := range p.jobs {
				job()
			}
		}()
	}
	return p
}

// Go runs f on one of the pool's goroutines without waiting for it to
// return. It waits for a free goroutine: a caller submitting work in a
// loop runs at most as far ahead as the pool has goroutines.
func (p *Pool) Go(f func()) { p.jobs <- f }

// Close stops the pool's goroutines once the jobs under way are done. Go
// must not be called after Close.
func (p *Pool) Close() { close(p.jobs) }
