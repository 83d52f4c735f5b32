//go:build !race

package pdftext_test

const slow = 1
