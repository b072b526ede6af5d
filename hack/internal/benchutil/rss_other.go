//go:build !linux

package benchutil

import "os"

// PeakRSS is only implemented on Linux, where ru_maxrss has a known unit.
func PeakRSS(*os.ProcessState) (int64, bool) { return 0, false }
