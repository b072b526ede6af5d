// Package benchutil holds what the benchmark harnesses under hack/ share:
// the peak RSS of a child process, the best and median of repeated runs,
// how sizes are printed, and the peer tools compared with (Peer).
package benchutil
