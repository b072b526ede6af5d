package sim

import (
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// releaseMapped hands the pages of the store file that the process mapped
// back to the kernel's page cache (MADV_DONTNEED on bbolt's read-only
// shared mapping). bbolt reads the file through that mapping, and a
// commit reads the old pages of every record it rewrites: without this,
// every page the engine ever read stays in the process's resident set,
// and at 100,000 sites that is most of the file. Later reads fault the
// pages in again from the page cache; nothing is lost, as the mapping is
// read-only and bbolt writes through the file. The read transaction keeps
// bbolt from remapping the file meanwhile.
func releaseMapped(db *bolt.DB) {
	_ = db.View(func(tx *bolt.Tx) error {
		if size := tx.Size(); size > 0 {
			_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, db.Info().Data, uintptr(size), syscall.MADV_DONTNEED)
		}
		return nil
	})
}
