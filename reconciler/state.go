package reconciler

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// The loop remembers, in its state directory, the hash and revision of
// the bundle it last applied to each site and the revision it last
// evaluated each at, so that after a restart it applies only what changed
// while it was stopped, and commits nothing when nothing did. The engine keeps its
// own state next to it; losing this file costs one pass that applies
// every site again, which the engine takes as no change.

// stateFile is the loop's file in the state directory.
const stateFile = "loop-state.json"

// stateVersion is the version of the file's format.
const stateVersion = 1

type savedState struct {
	Version int `json:"version"`
	// Revision is the revision of the last pass.
	Revision string               `json:"revision"`
	Sites    map[string]savedSite `json:"sites"`
}

type savedSite struct {
	Hash     string `json:"hash,omitempty"`
	Applied  string `json:"applied,omitempty"`
	Observed string `json:"observed,omitempty"`
}

// loadState reads the state file, if any, into the index.
func (l *Loop) loadState() error {
	if l.o.stateDir == "" {
		return nil
	}
	p := filepath.Join(l.o.stateDir, stateFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the loop state: %w", err)
	}
	var st savedState
	if err := json.Unmarshal(data, &st); err != nil || st.Version != stateVersion {
		// A file from another version or a torn one: start afresh, the
		// engine takes the bundles applied again as no change.
		l.o.logger.Warn("the loop state is unreadable; every site is applied again", "file", p)
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for name, s := range st.Sites {
		l.ix.put(&record{name: name, hash: s.Hash, applied: s.Applied, observed: s.Observed})
	}
	l.saved, l.savedRevision = data, st.Revision
	return nil
}

// saveState writes the state file when it changed. It runs after every
// pass, so it encodes into buffers it keeps rather than through a map of
// the whole fleet: a one-site commit leaves no garbage the size of the
// fleet behind.
func (l *Loop) saveState() error {
	if l.o.stateDir == "" {
		return nil
	}
	l.mu.RLock()
	names := l.stateNames[:0]
	for name, r := range l.ix.sites {
		if !r.deleting {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	data := appendState(l.stateBuf[:0], l.fleet.revision, names, l.ix.sites)
	l.mu.RUnlock()
	clear(names)
	l.stateNames, l.stateBuf = names, data
	if bytes.Equal(data, l.saved) {
		return nil
	}
	if err := writeDurably(l.o.stateDir, stateFile, data); err != nil {
		return fmt.Errorf("save the loop state: %w", err)
	}
	// The buffers swap: the one written is kept to compare with, the
	// other is encoded into next time.
	l.saved, l.stateBuf = data, l.saved
	return nil
}

// appendState appends the state file of the sites named (sorted) to buf:
// the bytes json.Marshal gives for a savedState of them.
func appendState(buf []byte, revision string, names []string, sites map[string]*record) []byte {
	buf = append(buf, `{"version":`...)
	buf = strconv.AppendInt(buf, stateVersion, 10)
	buf = append(buf, `,"revision":`...)
	buf = appendJSONString(buf, revision)
	buf = append(buf, `,"sites":{`...)
	for i, name := range names {
		if i > 0 {
			buf = append(buf, ',')
		}
		r := sites[name]
		buf = appendJSONString(buf, name)
		buf = append(buf, ":{"...)
		sep := false
		for _, f := range [...]struct{ key, value string }{{"hash", r.hash}, {"applied", r.applied}, {"observed", r.observed}} {
			if f.value == "" { // omitempty
				continue
			}
			if sep {
				buf = append(buf, ',')
			}
			sep = true
			buf = append(buf, '"')
			buf = append(buf, f.key...)
			buf = append(buf, `":`...)
			buf = appendJSONString(buf, f.value)
		}
		buf = append(buf, '}')
	}
	return append(buf, "}}"...)
}

// appendJSONString appends s as encoding/json writes it. Names and hashes
// are plain ASCII, copied as they are; anything else goes through
// encoding/json, so that its escapes stay the same.
func appendJSONString(buf []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			quoted, _ := json.Marshal(s)
			return append(buf, quoted...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

// writeDurably replaces a file through a synced temporary one, so that a
// crash leaves the old content or the new, never half of it.
func writeDurably(dir, name string, data []byte) error {
	tmp, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
