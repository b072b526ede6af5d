// Package safefs reads repository files with the limits siteops applies to
// untrusted input: a size limit on every file, and errors that say in
// plain words what went wrong (missing, unreadable, a symlink that leaves
// the root). Paths are read through an fs.FS, in production the one of an
// os.Root, so that nothing outside the fleet root can be reached.
//
// It also writes files atomically (WriteFileAtomic, WriteAtomic): through a
// synced temporary file renamed into place, so that no reader and no crash
// sees half a file.
package safefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// MaxFileSize is the largest input file siteops reads from a fleet
// repository (8 MiB): the site loader, kustomize builds and Git trees all
// apply it, so that a repository cannot exhaust memory with one file.
const MaxFileSize = 8 << 20

// ErrEscape marks a path or symlink that leads outside the fleet root.
var ErrEscape = errors.New("the path leads outside the fleet root")

// ErrTooLarge marks a file over the size limit.
var ErrTooLarge = errors.New("the file is over the size limit")

// kindError is a message that matches one of the errors above with
// errors.Is, without repeating its text.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }

// Escape returns an error with the given message that matches ErrEscape.
func Escape(format string, args ...any) error {
	return &kindError{msg: fmt.Sprintf(format, args...), kind: ErrEscape}
}

// ReadFile reads a file of at most max bytes.
func ReadFile(fsys fs.FS, p string, max int64) ([]byte, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, Explain(p, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, Explain(p, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a file", p)
	}
	if st.Size() > max {
		return nil, &kindError{fmt.Sprintf("%s is %d bytes, over the %d-byte limit on input files", p, st.Size(), max), ErrTooLarge}
	}
	// The size from Stat can be stale or wrong: the reader is limited too.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, Explain(p, err)
	}
	if int64(len(data)) > max {
		return nil, &kindError{fmt.Sprintf("%s is over the %d-byte limit on input files", p, max), ErrTooLarge}
	}
	return data, nil
}

// Explain rewrites the file-system errors people hit most into plain
// words, keeping the cause for errors.Is.
func Explain(p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &kindError{fmt.Sprintf("%s does not exist", p), fs.ErrNotExist}
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s cannot be read: %w", p, fs.ErrPermission)
	case strings.Contains(err.Error(), "escapes from parent"), strings.Contains(err.Error(), "path escapes"):
		return Escape("%s is a symlink that leads outside the fleet root", p)
	}
	return err
}
