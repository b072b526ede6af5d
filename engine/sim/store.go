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

// store keeps the engine's state in a bbolt file. Every write is one
// transaction, so a killed process leaves the state of the last commit.
type store struct{ db *bolt.DB }

// siteWrite is one site's part of a commit: nil fields are left as they
// are; Delete removes the site.
type siteWrite struct {
	Name    string
	Desired []byte
	State   []byte
	Delete  bool
}

func openStore(dir string, noSync bool) (*store, error) {
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
	return &store{db: db}, nil
}

// write commits site changes and the clock in one transaction.
func (s *store) write(sites []siteWrite, clock time.Time) error {
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

// load reads every site and the clock (zero for a new store).
func (s *store) load() (map[string]*siteState, time.Time, error) {
	sites := map[string]*siteState{}
	var clock time.Time
	err := s.db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketMeta).Get(keyClock); b != nil {
			if err := clock.UnmarshalText(b); err != nil {
				return fmt.Errorf("clock: %w", err)
			}
		}
		desiredB := tx.Bucket(bucketDesired)
		return tx.Bucket(bucketState).ForEach(func(k, v []byte) error {
			st := &siteState{}
			if err := json.Unmarshal(v, st); err != nil {
				return fmt.Errorf("site %s: %w", k, err)
			}
			if d := desiredB.Get(k); d != nil {
				st.Desired = &desired{}
				if err := json.Unmarshal(d, st.Desired); err != nil {
					return fmt.Errorf("site %s desired state: %w", k, err)
				}
			}
			sites[string(k)] = st
			return nil
		})
	})
	return sites, clock, err
}

func (s *store) close() error { return s.db.Close() }
