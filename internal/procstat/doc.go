// Package procstat reads the process's own counters, for the tests that
// build attacks on siteops and bound what they cost: the largest heap seen
// while something runs, and the CPU time used. Bounds read this way hold
// on a loaded machine, where wall-clock time does not.
package procstat
