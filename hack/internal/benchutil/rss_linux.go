//go:build linux

package benchutil

import (
	"os"
	"syscall"
)

// PeakRSS returns the peak resident set size of an exited child in bytes.
// On Linux, ru_maxrss from wait4 is in KiB.
func PeakRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0, false
	}
	return ru.Maxrss * 1024, true
}
