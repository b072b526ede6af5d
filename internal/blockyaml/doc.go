// Package blockyaml reads the block-style YAML that site files and
// extra manifests are written in, into the same gopkg.in/yaml.v3 node
// trees that yaml.v3's own parser builds, several times faster.
//
// It exists because parsing was the largest single cost of rendering a
// fleet: yaml.v3's parser (a port of libyaml) builds tokens and events for
// every scalar before it builds the node. Parse reads a document line by
// line instead, for a subset of YAML:
//
//   - block mappings and block sequences, a sequence under a key at the
//     key's own indentation ("key:\n- a"), a mapping starting on a dash
//     line ("- name: a");
//   - plain scalars, on one line or folded over the more indented lines
//     below (as yaml/v2 writes a long value), single-quoted scalars on
//     one line, double-quoted ones without escapes;
//   - comments and blank lines anywhere, "---" between documents.
//
// Anything else (flow collections, block scalars, anchors, aliases, tags,
// directives, escapes, multi-line quoted scalars, tabs, carriage returns,
// characters outside ASCII, empty documents, and every syntax error) makes
// Parse report false, and the caller parses with yaml.v3, which then gives
// its own result or its own error message: what a document means, and
// what is said about a broken one, never depends on which parser read it.
//
// # What is the same
//
// For every input Parse accepts, its documents equal those yaml.v3's
// Decoder gives, field by field (kind, style, tag, value, line, column,
// children), except comments, which Parse does not keep. Scalar tags are
// resolved by yaml.v3 itself (Node.ShortTag). Each scalar's value is a
// string of its own, as with yaml.v3, so that a value kept after its
// document is read does not keep the whole text alive. The tests hold the two
// parsers to each other on every file of the repository, on every fleet
// layout hack/fleetgen writes, and on random documents.
package blockyaml
