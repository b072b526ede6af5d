// Package examplecheck reads the Argo CD examples of examples/argocd with
// Argo CD's own types and loader, so that a misspelt field fails here
// rather than in a user's cluster.
package examplecheck
