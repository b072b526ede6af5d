package procstat

import (
	"runtime/metrics"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// HeapBytes is the memory the heap's objects take now, garbage included.
func HeapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// WatchHeap samples the heap every 2 ms until stop is called, which
// returns the most it saw.
func WatchHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			if h := HeapBytes(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak.Load()
	}
}

// CPUTime is the CPU time, user and system, the process has used.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Bound runs fn and fails t when fn takes more heap or CPU time than the
// generous bounds given: the attack tests' measure of "bounded".
func Bound(t testing.TB, maxHeap uint64, maxCPU time.Duration, fn func()) {
	t.Helper()
	stop := WatchHeap()
	cpu := CPUTime()
	fn()
	if used := CPUTime() - cpu; used > maxCPU {
		t.Errorf("used %s of CPU, over %s", used, maxCPU)
	}
	if peak := stop(); peak > maxHeap {
		t.Errorf("the heap reached %d MiB, over %d MiB", peak>>20, maxHeap>>20)
	}
}
