// Package parallel runs the iterations of a loop on every core (Each), and
// deeply recursive work on long-lived goroutines (Pool).
package parallel

import (
	"runtime"
	"sync"
)

// Each calls f(i) for every i in [0, n), on up to GOMAXPROCS goroutines,
// each taking every k-th index. Below minPerWorker iterations per
// goroutine it uses fewer goroutines, and none for fewer than two: starting
// them would cost more than it saves. f must be safe to call concurrently
// for different i. Each returns when every call has.
func Each(n, minPerWorker int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/max(minPerWorker, 1))
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() {
			for i := k; i < n; i += workers {
				f(i)
			}
		})
	}
	wg.Wait()
}
