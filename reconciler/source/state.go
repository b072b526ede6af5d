package source

import "github.com/siteops/siteops/internal/safefs"

// The status and state files are written atomically: neither a reader nor
// a crash ever leaves half a file.
var (
	writeFileAtomic = safefs.WriteFileAtomic
	writeAtomic     = safefs.WriteAtomic
)
