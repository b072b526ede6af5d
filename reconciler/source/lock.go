package source

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockFile is the file in a state directory that a running process holds
// locked.
const lockFile = "lock"

// StateLock is an exclusive hold on a state directory.
type StateLock struct {
	f *os.File
}

// Lock takes the state directory dir (creating it) for this process, so
// that two processes never share one: an flock on dir/lock, which the
// kernel releases when the process dies. The file records the holder's
// pid, named in the error another process gets.
func Lock(dir string) (*StateLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("state directory %s: %w", dir, err)
	}
	name := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("state directory %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			holder := "another process"
			if data, rerr := os.ReadFile(name); rerr == nil {
				if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); perr == nil {
					holder = "process " + strconv.Itoa(pid)
				}
			}
			return nil, fmt.Errorf("state directory %s is in use by %s: stop it, or give another state directory", dir, holder)
		}
		return nil, fmt.Errorf("lock state directory %s: %w", dir, err)
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &StateLock{f: f}, nil
}

// Unlock releases the state directory.
func (l *StateLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	// Closing the descriptor drops the flock; the pid stays, stale but
	// harmless: the next holder overwrites it.
	err := l.f.Close()
	l.f = nil
	return err
}
