// Package benchutil holds what the benchmark harnesses under hack/ share:
// the peak RSS of a child process, the best and median of repeated runs,
// and how sizes are printed.
package benchutil
