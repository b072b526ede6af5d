package cli

import (
	"runtime/debug"
	"strings"
)

// version is the release, set at build time with
// -ldflags "-X github.com/siteops/siteops/internal/cli.version=v1.2.3";
// without it the module version go install recorded, or the commit.
var version = ""

// Version says which siteops this is: the release, else the module
// version or the commit it was built from, and the Go version.
func Version() string {
	v := version
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return strings.TrimSpace(v + " (no build information)")
	}
	if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " (commit " + rev + dirty + ")"
	}
	return v + ", " + info.GoVersion
}
