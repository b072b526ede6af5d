package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// The embedded default: `siteops run` without a source runs the example
// fleet bundled into the binary, from a Git repository made of it under
// the state directory, so that status commits can be read with git log.

// demoRepoDir is the demo repository, relative to the state directory.
const demoRepoDir = "demo/fleet.git"

// demoBranch is the demo repository's branch.
const demoBranch = "main"

// seedRepository makes a bare repository at dir holding the tree of fsys
// under root as one commit on demoBranch, unless dir is a repository
// already (a later run continues with it, status commits included). It
// returns the repository's file:// URL.
func seedRepository(dir string, fsys fs.FS, root string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	url := "file://" + filepath.ToSlash(abs)
	if _, err := git.PlainOpen(abs); err == nil {
		return url, nil
	} else if !errors.Is(err, git.ErrRepositoryNotExists) {
		return "", fmt.Errorf("open the demo repository %s: %w", abs, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", err
	}
	repo, err := git.PlainInit(abs, true)
	if err != nil {
		return "", fmt.Errorf("create the demo repository %s: %w", abs, err)
	}
	s := repo.Storer
	tree, err := storeTree(s, fsys, root)
	if err != nil {
		os.RemoveAll(abs)
		return "", fmt.Errorf("create the demo repository: %w", err)
	}
	sig := object.Signature{Name: "siteops", Email: "siteops@localhost", When: time.Now()}
	commit := &object.Commit{Author: sig, Committer: sig, TreeHash: tree,
		Message: "The example fleet of siteops\n\nsiteops run made this repository from the fleet bundled into it.\n"}
	h, err := storeObject(s, commit)
	if err == nil {
		err = s.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(demoBranch), h))
	}
	if err == nil {
		err = s.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName(demoBranch)))
	}
	if err != nil {
		os.RemoveAll(abs)
		return "", fmt.Errorf("create the demo repository: %w", err)
	}
	return url, nil
}

// encodable is a Git object go-git can encode.
type encodable interface {
	Encode(plumbing.EncodedObject) error
}

func storeObject(s storer.EncodedObjectStorer, o encodable) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

// storeTree stores dir of fsys as a Git tree and returns its hash.
func storeTree(s storer.EncodedObjectStorer, fsys fs.FS, dir string) (plumbing.Hash, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	tree := &object.Tree{}
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		if e.IsDir() {
			h, err := storeTree(s, fsys, p)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			tree.Entries = append(tree.Entries, object.TreeEntry{Name: e.Name(), Mode: filemode.Dir, Hash: h})
			continue
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		blob := s.NewEncodedObject()
		blob.SetType(plumbing.BlobObject)
		w, err := blob.Writer()
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if _, err := w.Write(data); err != nil {
			return plumbing.ZeroHash, err
		}
		if err := w.Close(); err != nil {
			return plumbing.ZeroHash, err
		}
		h, err := s.SetEncodedObject(blob)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		tree.Entries = append(tree.Entries, object.TreeEntry{Name: e.Name(), Mode: filemode.Regular, Hash: h})
	}
	// Git orders a tree's entries by name, a directory's name compared as
	// if it ended in "/".
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(tree.Entries, func(i, j int) bool { return key(tree.Entries[i]) < key(tree.Entries[j]) })
	return storeObject(s, tree)
}
