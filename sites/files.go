package sites

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/siteops/siteops/internal/safefs"
)

// StatusDir is the folder of a fleet repository where the loop writes
// each site's status: a tree walk never reads sites from it.
const StatusDir = "status"

// DefaultMaxFileSize is the largest input file read. Anything bigger is
// reported instead of read, so a repository cannot exhaust memory.
const DefaultMaxFileSize = safefs.MaxFileSize

// File is the content of a file a site refers to.
type File struct {
	// Path is the path relative to the fleet root, slash-separated.
	Path string
	Data []byte
}

// ManifestDir is a directory of extra manifests: its regular files, sorted by
// name. Dot-files, empty files and sub-directories are left out, as upstream
// does (getExtraManifestMaps in openshift-kni/cnf-features-deploy
// ztp/siteconfig-generator/siteConfig/siteConfigBuilder.go), except the
// "workload" directory of the legacy cpuset partitioning (getWorkloadManifest).
type ManifestDir struct {
	Path     string
	Files    []*File
	Workload *ManifestDir
}

// Names returns the file names in the directory.
func (d *ManifestDir) Names() []string {
	names := make([]string, len(d.Files))
	for i, f := range d.Files {
		names[i] = path.Base(f.Path)
	}
	return names
}

// Files are the files and directories one site refers to, keyed by the
// path as written in the site.
type Files struct {
	Files map[string]*File
	Dirs  map[string]*ManifestDir
}

// fileReader reads referenced files from the fleet root, each once, with
// the size limit applied. It is safe for concurrent use.
type fileReader struct {
	fsys    fs.FS
	maxSize int64

	files memo[*File]
	dirs  memo[*ManifestDir]
}

func newFileReader(fsys fs.FS, maxSize int64) *fileReader {
	return &fileReader{fsys: fsys, maxSize: maxSize}
}

// memo remembers the outcome of reading each path, errors included, so
// that a file every site refers to is read once, even when many sites ask
// for it at the same moment. Safe for concurrent use.
type memo[T any] struct {
	mu   sync.Mutex
	done map[string]*memoEntry[T]
}

type memoEntry[T any] struct {
	once sync.Once
	v    T
	err  error
}

func (m *memo[T]) get(p string, read func(string) (T, error)) (T, error) {
	m.mu.Lock()
	if m.done == nil {
		m.done = map[string]*memoEntry[T]{}
	}
	e, ok := m.done[p]
	if !ok {
		e = &memoEntry[T]{}
		m.done[p] = e
	}
	m.mu.Unlock()
	e.once.Do(func() { e.v, e.err = read(p) })
	return e.v, e.err
}

// RootPath turns a path written in a site into a path inside the fleet
// root. Absolute paths and paths that climb out of the root are refused:
// a site may only refer to files of its own repository.
func RootPath(p string) (string, error) {
	if p == "" {
		return "", errors.New("the path is empty")
	}
	if filepath.IsAbs(p) || path.IsAbs(p) {
		return "", safefs.Escape("absolute path %q is not allowed; give a path relative to the fleet root", p)
	}
	clean := path.Clean(filepath.ToSlash(p))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", safefs.Escape("path %q leads outside the fleet root", p)
	}
	return clean, nil
}

// readFile reads one file, following symlinks only inside the root.
func (r *fileReader) readFile(p string) (*File, error) {
	rp, err := RootPath(p)
	if err != nil {
		return nil, err
	}
	return r.files.get(rp, func(rp string) (*File, error) {
		data, err := readLimited(r.fsys, rp, r.maxSize)
		if err != nil {
			return nil, err
		}
		return &File{Path: rp, Data: data}, nil
	})
}

// readDir reads an extra-manifest directory.
func (r *fileReader) readDir(p string) (*ManifestDir, error) {
	rp, err := RootPath(p)
	if err != nil {
		return nil, err
	}
	return r.dirs.get(rp, func(rp string) (*ManifestDir, error) {
		return readManifestDir(r.fsys, rp, r.maxSize)
	})
}

// ReadManifestDir reads a directory of extra manifests from fsys, such as
// the default set given with --extra-manifests-dir.
func ReadManifestDir(fsys fs.FS, dir string) (*ManifestDir, error) {
	return readManifestDir(fsys, dir, DefaultMaxFileSize)
}

func readManifestDir(fsys fs.FS, dir string, max int64) (*ManifestDir, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, explainFSError(dir, err)
	}
	d := &ManifestDir{Path: dir}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := path.Join(dir, name)
		if e.IsDir() {
			if name == "workload" {
				if d.Workload, err = readManifestDir(fsys, p, max); err != nil {
					return nil, err
				}
			}
			continue
		}
		data, err := readLimited(fsys, p, max)
		if err != nil {
			return nil, err
		}
		if len(strings.TrimSpace(string(data))) == 0 {
			continue
		}
		d.Files = append(d.Files, &File{Path: p, Data: data})
	}
	sort.Slice(d.Files, func(i, j int) bool { return d.Files[i].Path < d.Files[j].Path })
	return d, nil
}

// readLimited reads a file of at most max bytes.
func readLimited(fsys fs.FS, p string, max int64) ([]byte, error) {
	return safefs.ReadFile(fsys, p, max)
}

// explainFSError rewrites file-system errors into plain words.
func explainFSError(p string, err error) error { return safefs.Explain(p, err) }

// fileHint says how to fix a file or directory that could not be read.
func fileHint(err error) string {
	switch {
	case errors.Is(err, safefs.ErrEscape):
		return "keep the path inside the fleet root: relative to --root, or to the directory of the kustomization that lists the site, with no .. or symlink leading out"
	case errors.Is(err, fs.ErrNotExist):
		return "check the path: it is relative to the fleet root given with --root, or to the directory of the kustomization that lists the site"
	case errors.Is(err, fs.ErrPermission):
		return "make it readable by the user siteops runs as"
	case errors.Is(err, safefs.ErrTooLarge):
		return "split the file, or raise the limit with --max-file-size"
	}
	return ""
}
