package pdftext_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/braidsearch/braid/extract/pdftext"
	"github.com/braidsearch/braid/internal/formattest"
)

// BenchmarkRead reads PDFs of 10 and 100 pages of about 2.7 KB of text
// each (the pages of index's BenchmarkIndexPDF), in pages/s.
func BenchmarkRead(b *testing.B) {
	for _, n := range []int{10, 100} {
		var pages []formattest.Page
		for i := range n {
			para := strings.Repeat(fmt.Sprintf("Page %d discusses hybrid retrieval, lexical scoring and dense vectors in some depth. ", i+1), 25)
			pages = append(pages, formattest.Page{Bookmark: fmt.Sprintf("Section %d", i+1), Lines: []string{para}})
		}
		data := formattest.PDF(pages, formattest.PDFOptions{Title: "Bench"})
		b.Run(fmt.Sprintf("%dpages", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := pdftext.Read(b.Context(), data, pdftext.Limits{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}
