package source

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestLock(t *testing.T) {
	dir := t.TempDir()
	l, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(dir)
	want := fmt.Sprintf("state directory %s is in use by process %d", dir, os.Getpid())
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("second Lock: err = %v, want it to contain %q", err, want)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	again, err := Lock(dir)
	if err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	again.Unlock()
}

// TestLockAcrossProcesses holds the lock in another process: its pid is
// named, and the lock is free once it dies.
func TestLockAcrossProcesses(t *testing.T) {
	if dir := os.Getenv("SITEOPS_TEST_LOCK_HOLDER"); dir != "" {
		if _, err := Lock(dir); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		bufio.NewReader(os.Stdin).ReadString('\n') // hold until killed
		os.Exit(0)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockAcrossProcesses$")
	cmd.Env = append(os.Environ(), "SITEOPS_TEST_LOCK_HOLDER="+dir)
	stdin, err := cmd.StdinPipe()
	must(t, err)
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "locked" {
		cmd.Process.Kill()
		t.Fatalf("holder: %q, %v", line, err)
	}
	_, err = Lock(dir)
	if want := "in use by process " + strconv.Itoa(cmd.Process.Pid); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Lock held elsewhere: err = %v, want it to contain %q", err, want)
	}
	must(t, cmd.Process.Kill())
	cmd.Wait()
	l, err := Lock(dir)
	if err != nil {
		t.Fatalf("Lock after the holder died: %v", err)
	}
	l.Unlock()
}
