// Package krm reads and writes the ResourceList of a KRM function, the
// protocol kustomize speaks to a function it runs as a generator or
// transformer (sigs.k8s.io/kustomize/kyaml fn/framework, and
// kustomize's functions-spec.md): one ResourceList on stdin with items
// and an optional functionConfig, one ResourceList on stdout with the
// resulting items and results.
//
// Read decodes the input, keeping each item's YAML text (comments and
// key order included) and the file it came from; Writer streams the
// output, one item at a time, so that a large output never sits in memory
// twice. What the items mean is for the caller.
package krm
