package statusview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/siteops/siteops/reconciler/source"
	"github.com/siteops/siteops/reconciler/status"
)

// ErrNotFound is the error of an entry for a site that has no status
// document while others have one.
var ErrNotFound = errors.New("no status document")

// ErrNoStatusYet is the error of an entry for a site of a fleet that has
// no status document at all yet: the loop has not finished its first
// pass.
var ErrNoStatusYet = errors.New("no status document yet: the loop has not finished a pass")

// Source reads status documents.
type Source interface {
	// Read returns the entries of the sites named, in that order (an
	// entry whose Err wraps ErrNotFound for a site that has no document),
	// or of every site, sorted by name, when none is named. The error is
	// for a source that cannot be read at all.
	Read(ctx context.Context, sites []string) ([]status.Entry, error)
	// String names the source in messages.
	String() string
}

// pick keeps the entries of sites, in their order; all entries when none
// is named.
func pick(all []status.Entry, sites []string) []status.Entry {
	if len(sites) == 0 {
		return all
	}
	by := map[string]status.Entry{}
	names := []string{}
	for _, e := range all {
		by[e.Site] = e
		names = append(names, e.Site)
	}
	out := make([]status.Entry, 0, len(sites))
	for _, s := range sites {
		e, ok := by[s]
		if !ok {
			e = status.Entry{Site: s, Err: notFound(s, names)}
		}
		out = append(out, e)
	}
	return out
}

// maxNamesShown bounds the site names an error lists.
const maxNamesShown = 8

// notFound is the error of a site without a document, naming the sites
// that have one (names is nil when they are not known).
func notFound(site string, names []string) error {
	if names == nil {
		return fmt.Errorf("site %s: %w", site, ErrNotFound)
	}
	if len(names) == 0 {
		return fmt.Errorf("site %s: %w", site, ErrNoStatusYet)
	}
	more := ""
	if len(names) > maxNamesShown {
		names, more = names[:maxNamesShown], ", …"
	}
	return fmt.Errorf("site %s: %w; sites with one: %s%s", site, ErrNotFound, strings.Join(names, ", "), more)
}

// Dir reads a status directory on disk.
type Dir struct {
	// Path is the status directory.
	Path string
	// MayNotExist makes a directory that does not exist (yet) read as
	// one that holds no document: the loop makes it with its first pass,
	// which a wait started beforehand waits for.
	MayNotExist bool
}

func (d Dir) String() string { return d.Path }

func (d Dir) Read(_ context.Context, sites []string) ([]status.Entry, error) {
	info, err := os.Stat(d.Path)
	if errors.Is(err, fs.ErrNotExist) && d.MayNotExist {
		return pick(nil, sites), nil
	}
	if err != nil {
		return nil, fmt.Errorf("status directory %s: %w", d.Path, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("status directory %s is not a directory", d.Path)
	}
	entries, err := status.ReadDir(os.DirFS(d.Path), ".")
	if err != nil {
		return nil, fmt.Errorf("status directory %s: %w", d.Path, err)
	}
	for i := range entries {
		entries[i].File = filepath.Join(d.Path, filepath.FromSlash(entries[i].File))
	}
	return pick(entries, sites), nil
}

// Git reads the status directory of a branch of a Git repository, fetched
// afresh on every Read.
type Git struct {
	Options source.ReadOptions
	// Dir is the status directory in the repository (default status.Dir).
	Dir string
}

func (g Git) String() string { return g.Options.URL + " " + g.Options.Branch }

func (g Git) Read(ctx context.Context, sites []string) ([]status.Entry, error) {
	fsys, rev, err := source.ReadBranch(ctx, g.Options)
	if err != nil {
		return nil, err
	}
	dir := g.Dir
	if dir == "" {
		dir = status.Dir
	}
	entries, err := status.ReadDir(fsys, path.Clean(dir))
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", dir, source.ShortRevision(rev), err)
	}
	return pick(entries, sites), nil
}

// Server reads a running loop's JSON API: GET /api/sites for the fleet,
// GET /api/sites/{site} for each document.
type Server struct {
	// URL is the loop's address, such as http://127.0.0.1:8080.
	URL string
	// Client is the HTTP client (default one with a 30 s timeout).
	Client *http.Client
}

func (s Server) String() string { return s.URL }

// maxResponse bounds one answer of the API.
const maxResponse = 64 << 20

// fleetPage is the part of the API's overview a Read needs.
type fleetPage struct {
	Sites int `json:"sites"`
	Pages int `json:"pages"`
	Rows  []struct {
		Site string `json:"site"`
	} `json:"rows"`
}

func (s Server) Read(ctx context.Context, sites []string) ([]status.Entry, error) {
	if len(sites) == 0 {
		for page := 1; ; page++ {
			p, err := s.page(ctx, page)
			if err != nil {
				return nil, err
			}
			for _, r := range p.Rows {
				sites = append(sites, r.Site)
			}
			if page >= p.Pages {
				break
			}
		}
		if len(sites) == 0 {
			return nil, nil
		}
		// The API lists the sites that need a person first; a table
		// lists them by name, as a status directory does.
		slices.Sort(sites)
	}
	out := make([]status.Entry, 0, len(sites))
	for _, site := range sites {
		e := status.Entry{Site: site, File: s.URL + "/api/sites/" + url.PathEscape(site)}
		body, code, err := s.get(ctx, "/api/sites/"+url.PathEscape(site))
		switch {
		case err != nil:
			return nil, err
		case code == http.StatusNotFound:
			p, err := s.page(ctx, 1)
			if err != nil {
				return nil, err
			}
			var names []string
			if p.Sites == 0 {
				names = []string{}
			}
			e.Err = notFound(site, names)
		case code != http.StatusOK:
			e.Err = fmt.Errorf("%s: %s", e.File, apiError(code, body))
		default:
			e.Doc, e.Err = status.Decode(body)
		}
		out = append(out, e)
	}
	return out, nil
}

// page reads one page of the API's fleet overview.
func (s Server) page(ctx context.Context, n int) (*fleetPage, error) {
	body, code, err := s.get(ctx, "/api/sites?page="+strconv.Itoa(n))
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("%s/api/sites: %s", s.URL, apiError(code, body))
	}
	var p fleetPage
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, fmt.Errorf("%s/api/sites: %w (is it a siteops run?)", s.URL, err)
	}
	return &p, nil
}

func (s Server) get(ctx context.Context, p string) ([]byte, int, error) {
	c := s.Client
	if c == nil {
		c = &http.Client{Timeout: 30 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+p, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("--server %s: %w", s.URL, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("cannot reach siteops run at %s: %w", s.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, 0, fmt.Errorf("%s%s: %w", s.URL, p, err)
	}
	if len(body) > maxResponse {
		return nil, 0, fmt.Errorf("%s%s: the answer is over %d bytes", s.URL, p, maxResponse)
	}
	return body, resp.StatusCode, nil
}

// apiError is the message of an error answer ({"error": "..."}).
func apiError(code int, body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return e.Error
	}
	return http.StatusText(code)
}
