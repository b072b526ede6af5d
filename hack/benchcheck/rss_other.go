//go:build !linux

package main

import "os"

// peakRSS is known on Linux only; elsewhere the table shows "-".
func peakRSS(*os.ProcessState) (int64, bool) { return 0, false }
