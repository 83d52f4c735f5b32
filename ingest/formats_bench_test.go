package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/formattest"
	"github.com/braidsearch/braid/internal/testenv"
)

// BenchmarkIndexPDF indexes a folder holding one PDF of n pages, and the
// same text as a markdown note (a heading a page), without embeddings:
// the cost of extraction beside markdown's. The PDF is read as braid reads
// it (pdf: the pure-Go reader, which takes it) and by PDFium alone
// (pdfium). Its pages/s metric is what docs/benchmarks.md reports; each
// run re-indexes (Force).
func BenchmarkIndexPDF(b *testing.B) {
	for _, n := range []int{10, 100} {
		var pages []formattest.Page
		var md strings.Builder
		for i := range n {
			para := strings.Repeat(fmt.Sprintf("Page %d discusses hybrid retrieval, lexical scoring and dense vectors in some depth. ", i+1), 25)
			pages = append(pages, formattest.Page{Bookmark: fmt.Sprintf("Section %d", i+1), Lines: []string{para}})
			fmt.Fprintf(&md, "# Section %d\n\n%s\n\n", i+1, para)
		}
		files := map[string][]byte{
			"pdf":      formattest.PDF(pages, formattest.PDFOptions{Title: "Bench"}),
			"markdown": []byte(md.String()),
		}
		files["pdfium"] = files["pdf"]
		// Start the PDF engine outside the timings: once per process.
		if _, err := extract.PDF(b.Context(), files["pdf"], &extract.Options{OnlyPDFium: true}); err != nil {
			b.Fatal(err)
		}
		for _, kind := range []string{"markdown", "pdf", "pdfium"} {
			b.Run(fmt.Sprintf("%s/%dpages", kind, n), func(b *testing.B) {
				dir := b.TempDir()
				name := map[string]string{"pdf": "doc.pdf", "pdfium": "doc.pdf", "markdown": "doc.md"}[kind]
				testenv.Must(b, os.WriteFile(filepath.Join(dir, name), files[kind], 0o644))
				st, lex := openPair(b, b.TempDir())
				defer func() { lex.Close(); st.Close() }()
				ix := &Indexer{Store: st, Lexical: lex, Opt: Options{Workers: 1}, Force: true}
				if kind == "pdfium" {
					ix.Extract = &extract.Options{OnlyPDFium: true}
				}
				src := &index.Source{ID: "s1", Name: "v", Path: dir, Kind: index.SourceDir}
				b.SetBytes(int64(len(files[kind])))
				b.ReportAllocs()
				for b.Loop() {
					sum := &Summary{}
					if err := ix.Index(b.Context(), src, sum); err != nil || sum.Added+sum.Updated != 1 {
						b.Fatalf("%v %+v", err, sum)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "pages/s")
			})
		}
	}
}
