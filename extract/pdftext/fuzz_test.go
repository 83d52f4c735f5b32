package pdftext_test

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/braidsearch/braid/extract/pdftext"
	"github.com/braidsearch/braid/internal/formattest"
)

// FuzzPDFText feeds Read the corpus and the refused files, cut and
// flipped: it must take a file or refuse it with ErrUnsupported (or
// ErrOverLimit), never panic (Read's recover turns a panic into ErrUnsupported saying "panic":
// that is a bug here too), and what it takes must be UTF-8, page by page.
func FuzzPDFText(f *testing.F) {
	corpus := formattest.PDFCorpus()
	for _, n := range slices.Sorted(maps.Keys(corpus)) {
		if len(corpus[n]) < 64<<10 {
			f.Add(corpus[n])
		}
	}
	for _, c := range unsupported() {
		if len(c.data) < 64<<10 {
			f.Add(c.data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := pdftext.Read(t.Context(), data, pdftext.Limits{MaxPages: 100})
		if err != nil {
			if !errors.Is(err, pdftext.ErrUnsupported) && !errors.Is(err, pdftext.ErrOverLimit) {
				t.Fatalf("error %v is neither ErrUnsupported nor ErrOverLimit", err)
			}
			if strings.Contains(err.Error(), ": panic: ") {
				t.Fatalf("Read panicked: %v", err)
			}
			return
		}
		if len(d.Pages) == 0 {
			t.Fatal("a document without pages")
		}
		for i, p := range d.Pages {
			if !utf8.ValidString(p) {
				t.Fatalf("page %d is not UTF-8: %q", i+1, p)
			}
		}
	})
}
