//go:build tools

// Package tools pins kube-apiserver so that go mod tidy keeps its
// requirements; hack/hub builds k8s.io/kubernetes/cmd/kube-apiserver here.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
