package safefs

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
)

// WriteFileAtomic writes a file through a temporary one in the same
// directory, synced before it is renamed into place, so that neither a
// reader nor a crash ever sees half a file. The file is mode 0644.
func WriteFileAtomic(name string, data []byte) error {
	root, err := os.OpenRoot(filepath.Dir(name))
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer root.Close()
	return WriteAtomic(root, filepath.Base(name), data)
}

// WriteAtomic is WriteFileAtomic for name (slash-separated) inside root:
// neither name nor a symlink on its way can lead out of root.
func WriteAtomic(root *os.Root, name string, data []byte) error {
	f, err := CreateAtomic(root, path.Join(path.Dir(name), ".siteops-"))
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Commit(name); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// AtomicFile is a file written under a temporary name and given its own
// once it is whole (Commit), synced first: for content streamed rather
// than held, or whose name is known only once it is written (a Git pack,
// named by its checksum).
type AtomicFile struct {
	root *os.Root
	tmp  string
	f    *os.File
}

// CreateAtomic creates a temporary file in root, named prefix (which may
// hold a directory) and a random suffix. Commit or Abort it.
func CreateAtomic(root *os.Root, prefix string) (*AtomicFile, error) {
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := prefix + hex.EncodeToString(rnd[:])
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return &AtomicFile{root: root, tmp: tmp, f: f}, nil
}

// Write writes to the temporary file.
func (a *AtomicFile) Write(p []byte) (int, error) { return a.f.Write(p) }

// Commit syncs and closes the file and renames it to name (slash-separated,
// inside the root). On an error the temporary file is removed.
func (a *AtomicFile) Commit(name string) error {
	err := a.f.Sync()
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = a.root.Rename(a.tmp, name)
	}
	if err != nil {
		a.root.Remove(a.tmp)
	}
	return err
}

// Abort closes and removes the temporary file.
func (a *AtomicFile) Abort() {
	a.f.Close()
	a.root.Remove(a.tmp)
}
