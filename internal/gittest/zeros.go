package gittest

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"testing"
	"time"
)

// SeedZeros creates the bare repository name holding, on branch main,
// one commit of the given small files plus big, a file of size zero
// bytes. The content is streamed to git fast-import, so the big file never
// exists on disk and packs into almost nothing: the repository of an
// attack that would make a reader inflate gigabytes. It returns the
// repository's URL.
func (s *Server) SeedZeros(t testing.TB, name string, small map[string]string, big string, size int64) string {
	t.Helper()
	bare := s.initBare(t, name)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "fast-import", "--quiet")
	cmd.Dir = bare
	cmd.Env = gitEnv(bare)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(in, "commit refs/heads/main\ncommitter Human <human@example.com> 1767225600 +0000\ndata 5\nzeros\n")
	for p, c := range small {
		fmt.Fprintf(in, "M 100644 inline %s\ndata %d\n%s\n", p, len(c), c)
	}
	fmt.Fprintf(in, "M 100644 inline %s\ndata %d\n", big, size)
	zeros := make([]byte, 1<<20)
	for left := size; left > 0; left -= int64(len(zeros)) {
		if _, err := in.Write(zeros[:min(left, int64(len(zeros)))]); err != nil {
			t.Fatal(err)
		}
	}
	io.WriteString(in, "\n")
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("git fast-import: %v", err)
	}
	return s.URL(name)
}
