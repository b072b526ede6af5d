package hub

import (
	"testing"
	"time"

	"github.com/siteops/siteops/engine"
)

// The bounds are checked every retry interval, or often enough that a
// short bound is seen to pass within a quarter of its length.
func TestStallCheckInterval(t *testing.T) {
	for _, tc := range []struct {
		name   string
		bounds engine.Bounds
		want   time.Duration
	}{
		{"defaults", engine.DefaultBounds, DefaultRetryInterval},
		{"a short settle bound", engine.Bounds{StuckAfter: time.Hour, NoProgressAfter: time.Hour, SettleAfter: 2 * time.Second}, 500 * time.Millisecond},
		{"bounds off", engine.Bounds{StuckAfter: -1, NoProgressAfter: -1, SettleAfter: -1}, DefaultRetryInterval},
		{"a tiny bound", engine.Bounds{StuckAfter: time.Millisecond, NoProgressAfter: -1, SettleAfter: -1}, minStallCheckInterval},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := stallCheckInterval(DefaultRetryInterval, tc.bounds); got != tc.want {
				t.Errorf("stallCheckInterval(%s, %+v) = %s, want %s", DefaultRetryInterval, tc.bounds, got, tc.want)
			}
		})
	}
}
