//go:build linux

package main

import "testing"

func TestPeakRSS(t *testing.T) {
	if n := peakRSS(); n < 1<<20 {
		t.Errorf("peak RSS %d bytes", n)
	}
}
