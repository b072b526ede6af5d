// Package termtext makes text from a fleet repository or a status
// document safe to print on one line of a terminal, a table or a
// Markdown cell: a value can then neither break its row nor send the
// terminal an escape sequence nor reorder what follows it.
package termtext
