// Package safefs reads repository files with the limits siteops applies to
// untrusted input: a size limit on every file, and errors that say in
// plain words what went wrong (missing, unreadable, a symlink that leaves
// the root). Paths are read through an fs.FS, in production the one of a
// Root (an os.Root, which on Linux looks paths up with one openat2 call
// the kernel confines to it), so that nothing outside the fleet root can
// be reached.
//
// It also writes files atomically (WriteFileAtomic, WriteAtomic, and
// AtomicFile for content streamed or named once written): through a
// synced temporary file renamed into place, so that no reader and no crash
// sees half a file.
package safefs

import (
	"bytes"
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

// ErrNotRegular marks a named pipe, socket or device where a file was
// expected: opening or reading one could block forever.
var ErrNotRegular = errors.New("not a regular file")

// ReadFile reads a regular file of at most max bytes. Anything else (a
// named pipe, a socket, a device) is refused before it is opened: opening
// a named pipe blocks until someone writes to it.
func ReadFile(fsys fs.FS, p string, max int64) ([]byte, error) {
	if r, ok := fsys.(*rootFS); ok {
		if data, ok := r.fast.readFile(p, max); ok {
			return data, nil
		}
	}
	if sfs, ok := fsys.(fs.StatFS); ok { // the os.Root of the fleet is one
		st, err := sfs.Stat(p)
		if err != nil {
			return nil, Explain(p, err)
		}
		if err := Regular(p, st); err != nil {
			return nil, err
		}
	}
	f, err := fsys.Open(p)
	if err != nil {
		return nil, Explain(p, err)
	}
	defer f.Close()
	// The path may have been replaced since: look again at what is open.
	st, err := f.Stat()
	if err != nil {
		return nil, Explain(p, err)
	}
	if err := Regular(p, st); err != nil {
		return nil, err
	}
	if st.Size() > max {
		return nil, &kindError{fmt.Sprintf("%s is %d bytes, over the %d-byte limit on input files", p, st.Size(), max), ErrTooLarge}
	}
	// The size from Stat can be stale or wrong: the reader is limited too.
	// A buffer of that size is read in one go, where io.ReadAll would
	// grow one from 512 bytes (a fleet is thousands of small files).
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, Explain(p, err)
	}
	data := buf.Bytes()
	if int64(len(data)) > max {
		return nil, &kindError{fmt.Sprintf("%s is over the %d-byte limit on input files", p, max), ErrTooLarge}
	}
	return data, nil
}

// ReadListedFile reads, like ReadFile, a regular file of at most max
// bytes, one that a listing of its directory (a walk of the fleet finds
// thousands) or a stat has just given as a regular file (a ZTP
// kustomization lists thousands). It is opened at once rather
// than described first, and what is open is checked to be a regular file
// before anything is read: three system calls fewer a file. Should the
// name have become something else since the listing, it is refused as
// ReadFile refuses it, but only once opened: a named pipe is opened
// without waiting for a writer (O_NONBLOCK) and never read; a device is
// opened too, which only a process that may create device nodes in the
// tree could bring about (Git cannot store one).
func ReadListedFile(fsys fs.FS, p string, max int64) ([]byte, error) {
	if r, ok := fsys.(*rootFS); ok {
		if data, ok := r.fast.readListed(p, max); ok {
			return data, nil
		}
	}
	return ReadFile(fsys, p, max)
}

// Regular refuses what is not a regular file, in plain words.
func Regular(p string, st fs.FileInfo) error {
	m := st.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return fmt.Errorf("%s is a directory, not a file", p)
	case m&fs.ModeNamedPipe != 0:
		return &kindError{fmt.Sprintf("%s is a named pipe, not a file: remove it from the fleet (siteops reads regular files only)", p), ErrNotRegular}
	case m&fs.ModeSocket != 0:
		return &kindError{fmt.Sprintf("%s is a socket, not a file: remove it from the fleet (siteops reads regular files only)", p), ErrNotRegular}
	case m&fs.ModeDevice != 0:
		return &kindError{fmt.Sprintf("%s is a device, not a file: remove it from the fleet (siteops reads regular files only)", p), ErrNotRegular}
	}
	return &kindError{fmt.Sprintf("%s is not a regular file (%s): siteops reads regular files only", p, m.Type()), ErrNotRegular}
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
