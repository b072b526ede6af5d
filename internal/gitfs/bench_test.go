package gitfs

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/siteops/siteops/internal/gittest"
)

// fleetRepo makes a bare repository of n sites (one directory and two
// files each) and a second commit changing one site; it returns both
// commits.
func fleetRepo(b *testing.B, n int) (dir string, from, to plumbing.Hash) {
	b.Helper()
	srv := gittest.StartDaemon(b) // only its repositories are used
	files := make(map[string]string, 2*n)
	for i := range n {
		files[fmt.Sprintf("sites/site-%05d/siteconfig.yaml", i)] = fmt.Sprintf("name: site-%05d\n", i)
		files[fmt.Sprintf("sites/site-%05d/kustomization.yaml", i)] = "resources: [siteconfig.yaml]\n"
	}
	srv.SeedFiles(b, "fleet.git", files)
	f := srv.Head(b, "fleet.git", "main")
	t := srv.Commit(b, "fleet.git", "main", map[string]string{"sites/site-04242/siteconfig.yaml": "name: changed\n"}, "one site")
	dir = filepath.Join(srv.Dir(), "fleet.git")
	run(b, dir, "repack", "-adq") // as a clone's objects are
	return dir, plumbing.NewHash(f), plumbing.NewHash(t)
}

// BenchmarkFleet10000 reads a 10,000-site repository (20,000 files,
// packed as in a clone): the diff of two commits that differ in one file,
// and a read of every file of a commit.
func BenchmarkFleet10000(b *testing.B) {
	dir, from, to := fleetRepo(b, 10000)
	r, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Changed", func(b *testing.B) {
		for b.Loop() {
			got, err := r.Changed(from, to)
			if err != nil || len(got) != 1 {
				b.Fatalf("Changed = %q, %v", got, err)
			}
		}
	})
	b.Run("ReadTree", func(b *testing.B) {
		for b.Loop() {
			fsys, err := r.FS(to)
			if err != nil {
				b.Fatal(err)
			}
			files := 0
			err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				files++
				_, err = fsys.ReadFile(p)
				return err
			})
			if err != nil || files != 20000 {
				b.Fatalf("read %d files: %v", files, err)
			}
		}
	})
}
