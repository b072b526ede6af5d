package source

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/internal/gitfs"
	"github.com/siteops/siteops/internal/gittest"
	"github.com/siteops/siteops/internal/procstat"
)

// TestFetchOfAHugeBlob: a repository of a few hundred kilobytes holding
// half a gigabyte of zeros is refused from the object's header, before
// go-git would index the pack by inflating the blob: the error names the
// size and the limit, and the heap stays far below the blob's size.
func TestFetchOfAHugeBlob(t *testing.T) {
	const size = 512 << 20
	srv := gittest.StartDaemon(t)
	url := srv.SeedZeros(t, "fleet.git", map[string]string{"site.yaml": "kind: Small\n"}, "zeros.yaml", size)
	procstat.Bound(t, 256<<20, 2*time.Minute, func() {
		g := newTestGit(t, GitOptions{URL: url})
		_, err := next(t, g)
		if err == nil || !strings.Contains(err.Error(), gitfs.ErrObjectTooLarge.Error()) || !strings.Contains(err.Error(), fmt.Sprintf("an object of %d bytes", size)) {
			t.Errorf("Next: %v, want the object refused with its size", err)
		}
	})
}
