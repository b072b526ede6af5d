// Package kuberetry retries requests to a Kubernetes API server while the
// server is busy or restarting: 429, 5xx, timeouts and dropped
// connections. Errors another try would not change are returned at once.
package kuberetry
