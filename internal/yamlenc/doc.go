// Package yamlenc writes JSON-compatible Go values as block-style YAML,
// quickly and deterministically.
//
// It exists because siteops renders tens of thousands of Kubernetes objects
// per run: the usual route (encoding/json, then sigs.k8s.io/yaml, which
// re-parses the JSON and walks it by reflection) dominates render time.
// Append walks the value tree with a type switch and writes straight into a
// caller-owned buffer.
//
// # Accepted values
//
// The tree that encoding/json produces when decoding into any, with or
// without UseNumber: map[string]any, []any, string, bool, nil, float64 and
// json.Number. For convenience int, int64, uint64, []string and
// map[string]string are accepted too. Any other type, a NaN or infinite
// float64, a json.Number that is not a JSON number literal (or that overflows
// float64), a string that is not valid UTF-8 and nesting deeper than 1000
// levels are reported as an *Error naming the offending Go type or value and
// its path, such as spec.nodes[2].x. Invalid UTF-8 is rejected rather than
// replaced because YAML text cannot carry it and silently changing data is
// worse than failing.
//
// # Typed values
//
// AppendTyped writes a typed Go value (a struct with json tags, as the
// loop's status documents are) as Append writes the value
// internal/tomap's Convert gives for it, walking the struct's fields in
// the order of their keys instead of building maps to sort: the JSON
// rules (tag names, omitempty, omitzero, inlining) are tomap's, applied
// once per type.
//
// # Format
//
// The output follows the kubectl convention (what sigs.k8s.io/yaml.Marshal
// produces) so that rendered trees diff cleanly against existing ones:
//
//   - one document, no leading "---", always ending in a newline;
//   - two-space indentation; mapping keys sorted bytewise;
//   - a sequence that is a mapping value is not indented relative to its key
//     ("key:\n- a\n- b"); a mapping or sequence inside a sequence starts on
//     the dash line ("- k: v\n  k2: v2", "- - a\n  - b");
//   - empty mappings are "{}", empty sequences "[]", nil (and nil maps and
//     slices, as in encoding/json) "null";
//   - numbers are written as encoding/json writes them: json.Number as its
//     literal text, float64 in the shortest form that round-trips and without
//     ".0" for integers;
//   - a string containing a newline is a literal block scalar ("|", "|-" or
//     "|+", with an indentation indicator when it starts with white space or a
//     newline), unless it holds characters a block scalar cannot carry
//     (control characters other than tab, carriage returns, Unicode line
//     separators, non-characters), in which case it is double-quoted;
//   - a single-line string is plain when no YAML 1.1 or 1.2 parser could read
//     it as anything but that same string. Strings that would resolve to null,
//     a boolean (including y/n/yes/no/on/off in any case), a number (including
//     octal, hex, binary, digit separators, .inf and .nan), a timestamp or a
//     sexagesimal number are quoted, as are empty strings, strings with
//     leading or trailing spaces, leading indicator characters, ": " or " #";
//   - quoted strings use single quotes when no escaping is needed ('{}',
//     'true') and double quotes with JSON-style escapes otherwise;
//   - mapping keys follow the same rules but are never block scalars, and
//     keys longer than YAML's 1024-character implicit-key limit are written
//     as explicit "? key" entries. Unlike kubectl, keys up to that limit stay
//     implicit, so long annotation keys read naturally.
//
// # Guarantees
//
// The same value always encodes to the same bytes. Append and Marshal are
// safe for concurrent use, and in the steady state Append does not allocate
// once its buffer is large enough. For every accepted value,
// unmarshalling the output with gopkg.in/yaml.v3 into any gives back the
// input (numbers compared by value), and sigs.k8s.io/yaml.YAMLToJSON of the
// output equals encoding/json's encoding of the input. The tests check both
// properties on a table of cases and with a fuzz target.
package yamlenc
