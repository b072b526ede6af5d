package sites

// suggest returns the candidate closest to name by edit distance, or "" when
// none is close enough to be a plausible typo.
func suggest(name string, candidates []string) string {
	best, bestDist := "", len(name)/3+2
	for _, c := range candidates {
		if d := editDistance(lower(name), lower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Suggest returns the candidate closest to name, or "" when none is close
// enough to be a plausible typo: what problems suggest for an unknown
// field, and the command line for an unknown flag.
func Suggest(name string, candidates []string) string { return suggest(name, candidates) }
