//go:build !linux

package main

import "os"

// peakRSS is only implemented on Linux, where ru_maxrss has a known unit;
// elsewhere the table shows "-".
func peakRSS(*os.ProcessState) (int64, bool) { return 0, false }
