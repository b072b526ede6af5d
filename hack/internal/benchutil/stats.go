package benchutil

import (
	"fmt"
	"slices"
	"time"
)

// BestMedian returns the shortest and the median duration of ds (the mean
// of the two middle values for an even count); zeros for none.
func BestMedian(ds []time.Duration) (best, median time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	switch {
	case n == 0:
		return 0, 0
	case n%2 == 1:
		return s[0], s[n/2]
	}
	return s[0], (s[n/2-1] + s[n/2]) / 2
}

// MB prints a size in bytes as decimal megabytes with one decimal, "-"
// for an unknown (negative) size.
func MB(b int64) string {
	if b < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(b)/1e6)
}
