package extract

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/extract/pdftext"
	"github.com/braidsearch/braid/internal/formattest"
)

// pageWords is each page's words of d: its text split on white space.
func pageWords(d *Doc) [][]string {
	lines := strings.Split(string(d.Text), "\n")
	var out [][]string
	for i, start := range d.Pages {
		end := len(lines) + 1
		if i+1 < len(d.Pages) {
			end = d.Pages[i+1]
		}
		out = append(out, strings.Fields(strings.Join(lines[start-1:end-1], " ")))
	}
	return out
}

// TestReadersAgree reads every PDF of the corpus with both readers: the
// pure-Go one must take it, and give the title, the pages, each page's
// words and the outline's headings that PDFium gives.
func TestReadersAgree(t *testing.T) {
	corpus := formattest.PDFCorpus()
	for _, n := range slices.Sorted(maps.Keys(corpus)) {
		data := corpus[n]
		t.Run(n, func(t *testing.T) {
			if _, err := pdftext.Read(t.Context(), data, pdftext.Limits{}); err != nil {
				t.Fatalf("pdftext.Read: %v", err)
			}
			fast, err := fastPDF(t.Context(), data, nil, nil)
			if err != nil {
				t.Fatalf("fast: %v", err)
			}
			slow, err := pdfiumPDF(t.Context(), data, nil)
			if err != nil {
				t.Fatalf("PDFium: %v", err)
			}
			if fast.Title != slow.Title {
				t.Errorf("title %q, PDFium %q", fast.Title, slow.Title)
			}
			if diff := cmp.Diff(pageWords(slow), pageWords(fast)); diff != "" {
				t.Errorf("words by page (-PDFium +fast):\n%s\nPDFium:\n%s\nfast:\n%s", diff, slow.Text, fast.Text)
			}
			heads := func(d *Doc) (hs []string) {
				for _, l := range strings.Split(string(d.Text), "\n") {
					if strings.HasPrefix(l, "#") {
						hs = append(hs, l)
					}
				}
				return hs
			}
			if diff := cmp.Diff(heads(slow), heads(fast)); diff != "" {
				t.Errorf("headings (-PDFium +fast):\n%s", diff)
			}
		})
	}
}

// TestReadersFallBack: PDF gives the files the pure-Go reader refuses to
// PDFium, and returns what PDFium alone returns.
func TestReadersFallBack(t *testing.T) {
	page := func(font string) []byte {
		return formattest.RawPDF([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
			formattest.Stream("", []byte("BT /F1 12 Tf 72 700 Td <00410042> Tj ET")),
			font,
			"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> >>",
		}, "")
	}
	good := formattest.Paper(2, nil)
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"encrypted", formattest.PDF([]formattest.Page{{Lines: []string{"secret"}}}, formattest.PDFOptions{Password: "pw"})},
		{"scanned", formattest.PDF([]formattest.Page{{}, {}}, formattest.PDFOptions{})},
		{"type3 font", page("<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1 1] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << >> /Encoding << /Differences [0 /a /b] >> /FirstChar 0 /LastChar 1 /Widths [1 1] >>")},
		{"type0 without tounicode", page("<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [6 0 R] >>")},
		{"unknown filter", bytes.Replace(good, []byte("/Filter /FlateDecode"), []byte("/Filter /LZWDecode  "), 1)},
		{"broken xref offset", bytes.Replace(good, []byte(" 00000 n \n"), []byte("9 00000 n \n"), 3)},
		{"page count over its pages", formattest.HugeCount()},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := pdftext.Read(t.Context(), c.data, pdftext.Limits{}); !errors.Is(err, pdftext.ErrUnsupported) {
				t.Fatalf("pdftext.Read: %v, want ErrUnsupported", err)
			}
			got, err := PDF(t.Context(), c.data, nil)
			want, werr := pdfiumPDF(t.Context(), c.data, nil)
			t.Logf("PDF: %v; PDFium: %v", err, werr)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("PDF (-PDFium +got):\n%s", diff)
			}
			if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
				t.Errorf("PDF's error %v, PDFium's %v", err, werr)
			}
		})
	}
}

// TestHyphenJoined: a word broken by a hyphen at a line's end comes out
// whole from either reader, with no U+FFFE (PDFium's soft-hyphen mark).
func TestHyphenJoined(t *testing.T) {
	data := formattest.PDF([]formattest.Page{{Lines: []string{"the quick docu-", "mentation of hybrid retrieval"}}}, formattest.PDFOptions{})
	for name, opt := range map[string]*Options{"default": nil, "PDFium": {OnlyPDFium: true}} {
		d, err := PDF(t.Context(), data, opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if text := string(d.Text); !strings.Contains(text, "documentation") || strings.ContainsRune(text, '\uFFFE') {
			t.Errorf("%s: %q, want documentation joined and no U+FFFE", name, text)
		}
	}
}
