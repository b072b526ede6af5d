package sites

// SetFastYAML turns the internal/blockyaml reader on or off, for tests
// that compare what the fleet renders to with and without it.
func SetFastYAML(on bool) (was bool) {
	was, fastYAML = fastYAML, on
	return was
}
