//go:build race

package pdftext_test

// slow is how much slower the race detector makes the reader.
const slow = 10
