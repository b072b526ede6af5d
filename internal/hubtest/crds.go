package hubtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// crdDirs hold the CRDs the hub installs, relative to the repository
// root: the verbatim upstream copies the schema checks use, and the
// stand-ins of testdata/crds (see its README.md).
var crdDirs = []string{"internal/crdschema/crds", "internal/hubtest/testdata/crds"}

const crdEstablishTimeout = time.Minute

// CRDFiles lists the CRD files the hub installs.
func CRDFiles() ([]string, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	var files []string
	for _, d := range crdDirs {
		m, err := filepath.Glob(filepath.Join(root, d, "*.yaml"))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	return files, nil
}

// installCRDs creates every CRD and waits until each is established.
func (h *Hub) installCRDs(ctx context.Context) error {
	files, err := CRDFiles()
	if err != nil {
		return err
	}
	cs, err := apiextensionsclient.NewForConfig(h.Config())
	if err != nil {
		return err
	}
	crds := cs.ApiextensionsV1().CustomResourceDefinitions()
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(data, &crd); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if _, err := crds.Create(ctx, &crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("install CRD %s from %s: %w", crd.Name, f, err)
		}
		names = append(names, crd.Name)
	}
	ctx, cancel := context.WithTimeout(ctx, crdEstablishTimeout)
	defer cancel()
	for _, name := range names {
		for {
			crd, err := crds.Get(ctx, name, metav1.GetOptions{})
			if err == nil && established(crd) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("CRD %s not established after %s (last error: %v)", name, crdEstablishTimeout, err)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}
