package extract_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/internal/formattest"
)

// refusal reports whether err is one of the errors extract documents.
func refusal(err error) bool {
	for _, e := range []error{extract.ErrDamaged, extract.ErrNoText, extract.ErrOverLimit, extract.ErrEncrypted} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// checkDoc fails on a result that is neither a document nor a documented
// refusal, or a document whose pages do not lie in its text.
func checkDoc(t *testing.T, d *extract.Doc, err error) {
	t.Helper()
	if err != nil {
		if !refusal(err) {
			t.Fatalf("error %v is none of extract's refusals", err)
		}
		return
	}
	lines := bytes.Count(d.Text, []byte("\n")) + 1
	for i, p := range d.Pages {
		if p < 1 || p > lines || (i > 0 && p < d.Pages[i-1]) {
			t.Fatalf("page %d starts at line %d of %d (pages %v)", i+1, p, lines, d.Pages)
		}
	}
}

func FuzzHTML(f *testing.F) {
	for _, s := range []string{"<title>t</title><h1>x</h1>", "<a href=x.md>x</a>", "<div><div>", "---\n<p>x", "", "<table><tr><td>a"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := extract.HTML(data)
		checkDoc(t, d, err)
	})
}

func FuzzDOCX(f *testing.F) {
	f.Add(formattest.DOCX([]formattest.Para{{Style: "Heading1", Text: "A"}, {Text: "b"}}, [][]string{{"c", "d"}}))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := extract.DOCX(context.Background(), data)
		checkDoc(t, d, err)
	})
}

func FuzzODT(f *testing.F) {
	f.Add(formattest.ODT([]formattest.Para{{Style: "Heading2", Text: "A"}, {Text: "b"}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := extract.ODT(context.Background(), data)
		checkDoc(t, d, err)
	})
}

// FuzzPDF feeds PDFium bytes cut and flipped from a real PDF.
func FuzzPDF(f *testing.F) {
	good := formattest.Paper(2, nil)
	f.Add(good, 0, byte(0))
	f.Add(good, len(good)/2, byte('x'))
	f.Add(formattest.HugeCount(), 40, byte('9'))
	f.Fuzz(func(t *testing.T, data []byte, at int, b byte) {
		if len(data) > 1<<20 {
			return
		}
		data = bytes.Clone(data)
		if at >= 0 && at < len(data) {
			data[at] = b
		}
		d, err := extract.PDF(t.Context(), data, nil)
		checkDoc(t, d, err)
	})
}
