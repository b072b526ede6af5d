package benchutil

import (
	"testing"
	"time"
)

func TestBestMedian(t *testing.T) {
	for _, tt := range []struct {
		in        []time.Duration
		best, med time.Duration
	}{
		{nil, 0, 0},
		{[]time.Duration{7}, 7, 7},
		{[]time.Duration{5, 1, 3}, 1, 3},
		{[]time.Duration{4, 1, 3, 2}, 1, 2},
	} {
		if b, m := BestMedian(tt.in); b != tt.best || m != tt.med {
			t.Errorf("BestMedian(%v) = %d, %d; want %d, %d", tt.in, b, m, tt.best, tt.med)
		}
	}
}

func TestMB(t *testing.T) {
	for in, want := range map[int64]string{-1: "-", 0: "0.0", 1_234_567: "1.2"} {
		if got := MB(in); got != want {
			t.Errorf("MB(%d) = %q, want %q", in, got, want)
		}
	}
}
