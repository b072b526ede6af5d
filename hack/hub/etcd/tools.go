//go:build tools

// Package tools pins etcd so that go mod tidy keeps its requirements;
// hack/hub builds go.etcd.io/etcd/server/v3 here.
package tools

import _ "go.etcd.io/etcd/server/v3"
