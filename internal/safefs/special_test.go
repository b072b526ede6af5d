package safefs

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadFileRefusesSpecialFiles: a named pipe would block the open until
// someone writes to it, a socket or a device is no file; each is refused
// with its path, without being opened.
func TestReadFileRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "sock.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Symlink("pipe.yaml", filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	tests := []struct{ file, want string }{
		{"pipe.yaml", "pipe.yaml is a named pipe"},
		{"sock.yaml", "sock.yaml is a socket"},
		{"link.yaml", "link.yaml is a named pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := ReadFile(root.FS(), tt.file, 1<<20)
				done <- err
			}()
			err := <-done // a blocked open would hang here until the test binary's deadline
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadFile(%s) = %v, want %q", tt.file, err, tt.want)
			}
		})
	}
}
