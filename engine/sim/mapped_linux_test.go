package sim

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mappedKB is how much of a mapped file is resident in this process
// (the Rss of its mappings in /proc/self/smaps).
func mappedKB(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	total, in, seen := 0, false, false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			// A mapping's header: range, perms, offset, device, inode, path.
			in = len(f) >= 6 && f[5] == path
			seen = seen || in
		case in && len(f) == 3 && f[0] == "Rss:":
			kb, _ := strconv.Atoi(f[1])
			total += kb
		}
	}
	if !seen {
		// Zero would pass every bound the tests set, testing nothing.
		t.Fatalf("no mapping of %s in /proc/self/smaps", path)
	}
	return total
}

// After a write and after a load, the store keeps next to none of its
// file's pages resident (the meta pages a transaction reads, not the
// records), and what it wrote reads back whole.
func TestStoreReleasesMappedPages(t *testing.T) {
	dir := t.TempDir()
	st, err := OpenBoltStore(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	path, _ := filepath.EvalSymlinks(filepath.Join(dir, StoreFile))
	var recs []SiteRecord
	for i := range 200 {
		state := bytes.Repeat([]byte(strconv.Itoa(i)), 4000)
		recs = append(recs, SiteRecord{Name: fmt.Sprintf("site-%03d", i), Desired: []byte(`{"objects":[]}`), State: []byte(`"` + string(state) + `"`)})
	}
	// The records take about 2 MB: a tenth of it resident means they
	// were let go.
	const residentKB = 200
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for round := range 3 {
		if err := st.Write(recs, clock); err != nil {
			t.Fatal(err)
		}
		if kb := mappedKB(t, path); kb > residentKB {
			t.Errorf("round %d: %d kB of the store file resident after a write, want at most %d", round, kb, residentKB)
		}
	}
	got, gotClock, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	if kb := mappedKB(t, path); kb > residentKB {
		t.Errorf("%d kB of the store file resident after a load, want at most %d", kb, residentKB)

	}
	if !gotClock.Equal(clock) || len(got) != len(recs) {
		t.Fatalf("loaded %d sites at %v, want %d at %v", len(got), gotClock, len(recs), clock)
	}
	for i, r := range got {
		if r.Name != recs[i].Name || !bytes.Equal(r.State, recs[i].State) || !bytes.Equal(r.Desired, recs[i].Desired) {
			t.Errorf("site %s read back differs", r.Name)
		}
	}
}
