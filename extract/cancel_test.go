package extract_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/extract/pdftext"
	"github.com/braidsearch/braid/internal/formattest"
)

// A parse whose context is cancelled while it runs stops at its next
// check, inside the one long page or document, with the context's error.
// The context cancels itself at the parser's third check (the first is
// made as the parse starts, the second before the page or a few thousand
// tokens in), so the file would be read to its end if the parser checked
// only between pages.
func TestCancelStopsAParse(t *testing.T) {
	paras := make([]formattest.Para, 50_000)
	for i := range paras {
		paras[i] = formattest.Para{Text: fmt.Sprintf("Paragraph %d of a long document.", i)}
	}
	docx, odt := formattest.DOCX(paras, nil), formattest.ODT(paras)
	page := formattest.LongPage(1 << 20)
	for _, tc := range []struct {
		name  string
		parse func(ctx context.Context) error
	}{
		{"docx", func(ctx context.Context) error { _, err := extract.DOCX(ctx, docx); return err }},
		{"odt", func(ctx context.Context) error { _, err := extract.ODT(ctx, odt); return err }},
		// pdftext.Read polls the context it is given; extract.PDF hands it
		// one derived with the time bound, whose Err this one cannot see.
		{"pdf, one long page", func(ctx context.Context) error {
			_, err := pdftext.Read(ctx, page, pdftext.Limits{})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole := &formattest.CancelAfter{Context: t.Context(), N: 1 << 30}
			if err := tc.parse(whole); err != nil {
				t.Fatalf("uncancelled parse: %v", err)
			}
			if whole.Calls < 10 {
				t.Fatalf("the whole parse checked its context %d times, want it checked every few thousand tokens", whole.Calls)
			}
			ctx := &formattest.CancelAfter{Context: t.Context(), N: 3}
			err := tc.parse(ctx)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("parse cancelled at its third check = %v, want context.Canceled", err)
			}
			if ctx.Calls != ctx.N {
				t.Errorf("the parse checked its context %d times, want it to stop at the check that saw the cancellation (%d)", ctx.Calls, ctx.N)
			}
		})
	}
}

// A context cancelled before the call ends PDF, DOCX and ODT at once with
// context.Canceled, having read nearly nothing: a few allocations, where
// reading the file makes thousands.
func TestCancelledBeforeTheCall(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	paper := formattest.Paper(200, nil)
	paras := make([]formattest.Para, 2000)
	for i := range paras {
		paras[i] = formattest.Para{Text: "A paragraph."}
	}
	docx := formattest.DOCX(paras, nil)
	for _, tc := range []struct {
		name  string
		parse func(ctx context.Context) error
	}{
		{"pdf", func(ctx context.Context) error { _, err := extract.PDF(ctx, paper, nil); return err }},
		{"docx", func(ctx context.Context) error { _, err := extract.DOCX(ctx, docx); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.parse(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("parse after cancel = %v, want context.Canceled", err)
			}
			cancelled := testing.AllocsPerRun(3, func() { tc.parse(ctx) })
			read := testing.AllocsPerRun(1, func() { tc.parse(t.Context()) })
			if cancelled*20 > read {
				t.Errorf("a cancelled parse made %.0f allocations, a whole one %.0f: it read on after the cancellation", cancelled, read)
			}
		})
	}
}
