package tomaptest

// Empty is a tomap.Prune Drop for tests: null, false, "", or an object
// of nothing but such objects.
func Empty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case map[string]any:
		for _, sub := range v {
			if m, ok := sub.(map[string]any); !ok || !Empty(m) {
				return false
			}
		}
		return true
	}
	return false
}
