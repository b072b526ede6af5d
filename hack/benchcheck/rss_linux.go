//go:build linux

package main

import (
	"os"
	"syscall"
)

// peakRSS is the peak resident set size of an exited child, in bytes:
// ru_maxrss from wait4, which Linux gives in KiB.
func peakRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0, false
	}
	return ru.Maxrss * 1024, true
}
