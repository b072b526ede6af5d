package render

import (
	"compress/gzip"
	"io"
)

// WriteIgnitionArchive writes the archive whose size ArchiveSize measures,
// for tests to take apart.
func WriteIgnitionArchive(w io.Writer, d *Discovery) {
	zw := gzip.NewWriter(w)
	writeIgnitionCpio(zw, d.JSON)
	zw.Close()
}

// QuoteJSON is the quoting of the discovery config's strings.
func QuoteJSON(s string) string { return string(appendJSONString(nil, s)) }
