package kustomize

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// kustomize treats an entry of resources, components or bases as a remote
// base when it parses as a git repository URL (internal/git.RepoSpec in
// kustomize/api): it then runs the git program (git init, fetch,
// checkout, submodule update) to clone it. It treats any path it loads as
// a file (resources, patches, generator sources, ...) as a URL to fetch
// over HTTP when it parses with an http or https scheme. The checks here
// recognise a superset of both forms, so that with remote bases
// disallowed nothing is ever fetched or run.

// scpUser matches the user@ of an SCP-like git address (git@host:org/repo),
// as kustomize's parser does.
var scpUser = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9-]*@`)

// remoteSchemes are the URL schemes kustomize's git and HTTP loaders accept.
var remoteSchemes = []string{"ssh", "https", "http", "file", "git"}

// isRemoteBase reports whether kustomize would clone or fetch entry.
func isRemoteBase(entry string) bool {
	s := strings.TrimSpace(entry)
	lower := strings.ToLower(s)
	switch {
	case strings.Contains(s, "://"),
		strings.HasPrefix(lower, "git::"),
		strings.HasPrefix(lower, "github.com/"), strings.HasPrefix(lower, "github.com:"),
		scpUser.MatchString(s):
		return true
	}
	return hasRemoteScheme(s)
}

// isRemoteFile reports whether kustomize would fetch p over HTTP when it
// loads it as a file. Anything with "://" counts, which covers kustomize's
// own test (an http or https scheme) and any scheme a later version adds.
func isRemoteFile(p string) bool {
	return strings.Contains(p, "://") || hasRemoteScheme(strings.TrimSpace(p))
}

func hasRemoteScheme(s string) bool {
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	for _, scheme := range remoteSchemes {
		if strings.EqualFold(u.Scheme, scheme) {
			return true
		}
	}
	return false
}

// safeRef is what a ref (branch, tag or commit) may look like. kustomize
// hands the ref to git fetch as an argument, so one starting with "-"
// would be taken as an option (--upload-pack=... runs a program).
var safeRef = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._/+-]*$`)

// checkRemote returns why an allowed remote entry is still refused, or ""
// when kustomize may fetch it. Only https and ssh transports are allowed:
// plain http can be tampered with on the way, file:// reads outside the
// fleet, and git's other transports can run programs.
func checkRemote(entry string) string {
	s := strings.TrimSpace(entry)
	lower := strings.ToLower(s)
	if strings.HasPrefix(lower, "git::") {
		return "the git:: prefix is not supported; write the URL without it"
	}
	rest := s
	switch {
	case strings.HasPrefix(lower, "https://"), strings.HasPrefix(lower, "ssh://"):
		_, rest, _ = strings.Cut(s, "://")
	case strings.HasPrefix(lower, "http://"):
		return "plain http can be tampered with in transit; use https"
	case strings.HasPrefix(lower, "file://"):
		return "a file:// repository lies outside the fleet root"
	case strings.Contains(s, "://"):
		scheme, _, _ := strings.Cut(s, "://")
		return fmt.Sprintf("the %q scheme is not supported; use https or ssh", scheme)
	case strings.HasPrefix(lower, "github.com/"), strings.HasPrefix(lower, "github.com:"), scpUser.MatchString(s):
	default:
		return "not a remote location kustomize understands"
	}
	target, query, _ := strings.Cut(rest, "?")
	for _, part := range strings.FieldsFunc(target, func(r rune) bool { return r == '/' || r == ':' || r == '@' }) {
		if strings.HasPrefix(part, "-") {
			return fmt.Sprintf("%q looks like a git option", part)
		}
	}
	values, err := url.ParseQuery(query)
	if err != nil {
		return fmt.Sprintf("the query %q does not parse: %v", query, err)
	}
	for _, key := range []string{"ref", "version"} {
		for _, v := range values[key] {
			if !safeRef.MatchString(v) {
				return fmt.Sprintf("the %s %q is not a plain branch, tag or commit", key, v)
			}
		}
	}
	return ""
}
