//go:build !linux

package sim

import bolt "go.etcd.io/bbolt"

// releaseMapped does nothing where the resident set does not count mapped
// file pages the same way; see mapped_linux.go.
func releaseMapped(*bolt.DB) {}
