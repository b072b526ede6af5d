package hubsim

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/siteops/siteops/engine/sim"
)

// Keys of a state ConfigMap.
const (
	keyDesired = "desired.json.gz"
	keyState   = "state.json.gz"
	keyClock   = "clock"
	// annotationSite keeps the site's name (a ConfigMap name is a
	// DNS name, a site name need not be).
	annotationSite = "hubsim.siteops.io/site"
)

// maxStateBytes bounds one site's state as read back: a ConfigMap holds
// at most 1 MiB, compressed.
const maxStateBytes = 64 << 20

// cmStore is a sim.Store in ConfigMaps of the API server: one per site,
// holding its desired and running state compressed, and one for the
// clock. A site's write is one request, so each site's state is whole;
// sites are independent of each other, so a write cut short leaves each
// site at its previous or its new state, which is all the engine needs.
type cmStore struct {
	kc      kubernetes.Interface
	ns      string
	workers int
	ctx     context.Context

	mu sync.Mutex
	// desired keeps each site's last desired state: a write that leaves
	// it unchanged still sends the whole ConfigMap.
	desired map[string][]byte
}

func newCMStore(ctx context.Context, kc kubernetes.Interface, ns string, workers int) *cmStore {
	return &cmStore{kc: kc, ns: ns, workers: workers, ctx: ctx, desired: map[string][]byte{}}
}

// configMapName is the state ConfigMap of a site: the site's name when it
// is a DNS label, else a digest of it.
func configMapName(site string) string {
	name := "site-" + site
	if len(validation.IsDNS1123Subdomain(name)) == 0 && len(name) <= 63 {
		return name
	}
	sum := sha256.Sum256([]byte(site))
	return "site-" + hex.EncodeToString(sum[:10])
}

// ensureNamespace creates the state namespace if it is missing.
func (s *cmStore) ensureNamespace(ctx context.Context) error {
	_, err := s.kc.CoreV1().Namespaces().Get(ctx, s.ns, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}
		_, err = s.kc.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{FieldManager: managerSim})
		if apierrors.IsAlreadyExists(err) {
			err = nil
		}
	}
	if err != nil {
		return fmt.Errorf("state namespace %s: %w", s.ns, err)
	}
	return nil
}

// Load reads every site's ConfigMap and the clock.
func (s *cmStore) Load() ([]sim.SiteRecord, time.Time, error) {
	var clock time.Time
	var out []sim.SiteRecord
	list, err := s.kc.CoreV1().ConfigMaps(s.ns).List(s.ctx, metav1.ListOptions{LabelSelector: labelState})
	if err != nil {
		return nil, clock, fmt.Errorf("list the state ConfigMaps of %s: %w", s.ns, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cm := range list.Items {
		if cm.Name == stateClockName {
			if err := clock.UnmarshalText([]byte(cm.Data[keyClock])); err != nil {
				return nil, clock, fmt.Errorf("ConfigMap %s/%s: clock: %w", s.ns, cm.Name, err)
			}
			continue
		}
		site := cm.Annotations[annotationSite]
		if site == "" {
			continue
		}
		// A damaged ConfigMap is reported by the engine and its site
		// simulated again; the others resume.
		r := sim.SiteRecord{Name: site}
		if r.State, err = gunzip(cm.BinaryData[keyState]); err != nil {
			r.Unreadable = fmt.Errorf("ConfigMap %s/%s, key %s: %w", s.ns, cm.Name, keyState, err)
		} else if b := cm.BinaryData[keyDesired]; b != nil {
			if r.Desired, err = gunzip(b); err != nil {
				r.Unreadable = fmt.Errorf("ConfigMap %s/%s, key %s: %w", s.ns, cm.Name, keyDesired, err)
			} else {
				s.desired[site] = r.Desired
			}
		}
		out = append(out, r)
	}
	return out, clock, nil
}

// Write sends each changed site's ConfigMap, several at once, then the
// clock.
func (s *cmStore) Write(sites []sim.SiteRecord, clock time.Time) error {
	work := make(chan sim.SiteRecord)
	errs := make(chan error, len(sites))
	var wg sync.WaitGroup
	for range min(s.workers, max(len(sites), 1)) {
		wg.Go(func() {
			for r := range work {
				if err := s.writeSite(r); err != nil {
					errs <- err
				}
			}
		})
	}
	for _, r := range sites {
		work <- r
	}
	close(work)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	b, _ := clock.MarshalText()
	cm := corev1apply.ConfigMap(stateClockName, s.ns).WithLabels(map[string]string{labelState: "clock"}).WithData(map[string]string{keyClock: string(b)})
	return retry(s.ctx, func() error {
		_, err := s.kc.CoreV1().ConfigMaps(s.ns).Apply(s.ctx, cm, metav1.ApplyOptions{FieldManager: managerSim, Force: true})
		return err
	})
}

func (s *cmStore) writeSite(r sim.SiteRecord) error {
	name := configMapName(r.Name)
	if r.Delete {
		s.mu.Lock()
		delete(s.desired, r.Name)
		s.mu.Unlock()
		return retry(s.ctx, func() error {
			err := s.kc.CoreV1().ConfigMaps(s.ns).Delete(s.ctx, name, metav1.DeleteOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return err
		})
	}
	s.mu.Lock()
	if r.Desired != nil {
		s.desired[r.Name] = r.Desired
	}
	desired := s.desired[r.Name]
	s.mu.Unlock()
	data := map[string][]byte{keyState: gzipBytes(r.State)}
	if desired != nil {
		data[keyDesired] = gzipBytes(desired)
	}
	cm := corev1apply.ConfigMap(name, s.ns).
		WithLabels(map[string]string{labelState: "site"}).
		WithAnnotations(map[string]string{annotationSite: r.Name}).
		WithBinaryData(data)
	return retry(s.ctx, func() error {
		_, err := s.kc.CoreV1().ConfigMaps(s.ns).Apply(s.ctx, cm, metav1.ApplyOptions{FieldManager: managerSim, Force: true})
		if err != nil {
			return fmt.Errorf("save the state of site %s in ConfigMap %s/%s: %w", r.Name, s.ns, name, err)
		}
		return nil
	})
}

// Close has nothing to release: the state is in the API server.
func (s *cmStore) Close() error { return nil }

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func gunzip(b []byte) ([]byte, error) {
	if b == nil {
		return nil, fmt.Errorf("missing")
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxStateBytes+1))
	if err != nil {
		return nil, err
	}
	if len(out) > maxStateBytes {
		return nil, fmt.Errorf("larger than %d MiB uncompressed", maxStateBytes>>20)
	}
	return out, nil
}
