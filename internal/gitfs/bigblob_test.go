package gitfs

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/internal/gittest"
	"github.com/siteops/siteops/internal/procstat"
)

// zeroBlobSize is the blob of zeros of the attack: half a gigabyte that packs
// into under a megabyte.
const zeroBlobSize = 512 << 20

// TestHugeBlobIsRefusedFromItsHeader: a blob over the size limit is
// refused from the size in its object header, without being inflated,
// and the commit's other files read as usual.
func TestHugeBlobIsRefusedFromItsHeader(t *testing.T) {
	srv := gittest.StartDaemon(t)
	srv.SeedZeros(t, "fleet.git", map[string]string{"small.yaml": "kind: Small\n"}, "big.yaml", zeroBlobSize)
	r, err := Open(filepath.Join(srv.Dir(), "fleet.git"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h, err := r.Resolve("main")
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := r.FS(h)
	if err != nil {
		t.Fatal(err)
	}
	procstat.Bound(t, 256<<20, time.Minute, func() {
		_, err = fsys.ReadFile("big.yaml")
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("is %d bytes, over the", zeroBlobSize)) {
			t.Errorf("ReadFile(big.yaml) = %v, want too large with its size", err)
		}
		st, err := fsys.Open("big.yaml")
		if err == nil {
			info, _ := st.Stat()
			if info.Size() != zeroBlobSize {
				t.Errorf("Stat size %d", info.Size())
			}
			st.Close()
		}
		if data, err := fsys.ReadFile("small.yaml"); err != nil || string(data) != "kind: Small\n" {
			t.Errorf("small.yaml: %q, %v", data, err)
		}
	})
}
