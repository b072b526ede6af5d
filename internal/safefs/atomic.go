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
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := path.Join(path.Dir(name), ".siteops-"+hex.EncodeToString(rnd[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}
