package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// StoreFile is the name of the engine's store inside the state directory.
const StoreFile = "engine.db"

// The store's buckets: each site's desired state (written when a bundle is
// applied) and its running state (written as it changes), plus the
// engine's clock.
var (
	bucketDesired = []byte("desired")
	bucketState   = []byte("state")
	bucketMeta    = []byte("meta")
	keyClock      = []byte("clock")
	keyVersion    = []byte("version")
)

// storeVersion is the layout of the store; a store of another version is
// refused rather than misread.
const storeVersion = "1"

// SiteRecord is one site as a Store keeps it: its desired state and its
// running state, both JSON. In a Write, a nil Desired or State leaves the
// stored one as it is, and Delete removes the site.
type SiteRecord struct {
	Name    string
	Desired []byte
	State   []byte
	Delete  bool
	// Unreadable, from a Load, says why the site's stored record could
	// not be read; the engine then starts the site again from its next
	// bundle, and the other sites resume.
	Unreadable error
}

// siteWrite is one site's part of a commit.
type siteWrite = SiteRecord

// Store keeps the engine's state between runs: the embedded engine keeps it
// in a bbolt file (the default), the hub simulator in the API server
// (Options.Store). A Write is all or nothing as far as the engine can
// tell: a process killed during it resumes from a state at least as new
// as the previous Write.
type Store interface {
	// Load returns every site and the clock (zero for a new store).
	Load() ([]SiteRecord, time.Time, error)
	// Write commits site changes and the clock.
	Write(sites []SiteRecord, clock time.Time) error
	// Close releases the store.
	Close() error
}

// store is the engine's handle on its Store.
type store struct{ s Store }

func (s *store) write(sites []siteWrite, clock time.Time) error { return s.s.Write(sites, clock) }

func (s *store) close() error { return s.s.Close() }

// load decodes every site of the store, and the clock. A site whose
// record cannot be read is left out, its reason in unreadable: one
// damaged record must not keep every other site from resuming.
func (s *store) load() (sites map[string]*siteState, clock time.Time, unreadable []error, err error) {
	recs, clock, err := s.s.Load()
	if err != nil {
		return nil, clock, nil, err
	}
	sites = make(map[string]*siteState, len(recs))
	for _, r := range recs {
		if r.Unreadable != nil {
			unreadable = append(unreadable, fmt.Errorf("site %s: %w", r.Name, r.Unreadable))
			continue
		}
		st, err := decodeSite(r)
		if err != nil {
			unreadable = append(unreadable, err)
			continue
		}
		sites[r.Name] = st
	}
	return sites, clock, unreadable, nil
}

// decodeSite reads one stored site.
func decodeSite(r SiteRecord) (*siteState, error) {
	st := &siteState{}
	if err := json.Unmarshal(r.State, st); err != nil {
		return nil, fmt.Errorf("site %s: %w", r.Name, err)
	}
	if r.Desired != nil {
		st.Desired = &desired{}
		if err := json.Unmarshal(r.Desired, st.Desired); err != nil {
			return nil, fmt.Errorf("site %s desired state: %w", r.Name, err)
		}
	}
	return st, nil
}

// boltStore keeps the engine's state in a bbolt file. Every write is one
// transaction, so a killed process leaves the state of the last commit.
type boltStore struct{ db *bolt.DB }

// openStore opens the store the options name, and says where it is.
func (o *Options) openStore() (*store, string, error) {
	if o.Store != nil {
		return &store{s: o.Store}, "the state store", nil
	}
	st, err := openStore(o.StateDir, o.NoSync)
	return st, o.StateDir, err
}

func openStore(dir string, noSync bool) (*store, error) {
	b, err := OpenBoltStore(dir, noSync)
	if err != nil {
		return nil, err
	}
	return &store{s: b}, nil
}

// OpenBoltStore opens (or creates) the bbolt store of a state directory:
// the Store an engine uses when Options.Store is nil.
func OpenBoltStore(dir string, noSync bool) (Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	path := filepath.Join(dir, StoreFile)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second, NoSync: noSync, NoFreelistSync: true})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, fmt.Errorf("open %s: another siteops process holds it; stop it or use another --state-dir", path)
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketDesired, bucketState, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		meta := tx.Bucket(bucketMeta)
		switch v := meta.Get(keyVersion); {
		case v == nil:
			return meta.Put(keyVersion, []byte(storeVersion))
		case string(v) != storeVersion:
			return fmt.Errorf("the store is of version %s, this siteops reads version %s; use a new --state-dir", v, storeVersion)
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return &boltStore{db: db}, nil
}

// Write commits site changes and the clock in one transaction, then
// releases the file's pages the transaction mapped (releaseMapped).
func (s *boltStore) Write(sites []SiteRecord, clock time.Time) error {
	defer releaseMapped(s.db)
	return s.db.Update(func(tx *bolt.Tx) error {
		desiredB, state := tx.Bucket(bucketDesired), tx.Bucket(bucketState)
		for _, w := range sites {
			key := []byte(w.Name)
			if w.Delete {
				if err := desiredB.Delete(key); err != nil {
					return err
				}
				if err := state.Delete(key); err != nil {
					return err
				}
				continue
			}
			if w.Desired != nil {
				if err := desiredB.Put(key, w.Desired); err != nil {
					return err
				}
			}
			if w.State != nil {
				if err := state.Put(key, w.State); err != nil {
					return err
				}
			}
		}
		b, _ := clock.MarshalText()
		return tx.Bucket(bucketMeta).Put(keyClock, b)
	})
}

// Load reads every site and the clock (zero for a new store).
func (s *boltStore) Load() ([]SiteRecord, time.Time, error) {
	defer releaseMapped(s.db)
	var sites []SiteRecord
	var clock time.Time
	err := s.db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketMeta).Get(keyClock); b != nil {
			if err := clock.UnmarshalText(b); err != nil {
				return fmt.Errorf("clock: %w", err)
			}
		}
		desiredB := tx.Bucket(bucketDesired)
		return tx.Bucket(bucketState).ForEach(func(k, v []byte) error {
			r := SiteRecord{Name: string(k), State: append([]byte(nil), v...)}
			if d := desiredB.Get(k); d != nil {
				r.Desired = append([]byte(nil), d...)
			}
			sites = append(sites, r)
			return nil
		})
	})
	return sites, clock, err
}

// Close closes the file.
func (s *boltStore) Close() error { return s.db.Close() }
