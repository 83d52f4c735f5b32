package braid_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/chunk"
)

// askVault is a small vault about solar power: a long note in sections
// (split into overlapping chunks), a note that copies one of its
// paragraphs word for word, a short note, and notes on other subjects.
func askVault() map[string]string {
	filler := func(topic string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "Line %d about %s keeps going with more words on the subject.\n", i, topic)
		}
		return b.String()
	}
	copied := "Solar panels convert sunlight into electricity through the photovoltaic effect in silicon cells.\n" +
		"Each silicon cell makes about half a volt, so panels wire dozens of cells in series.\n"
	return map[string]string{
		"solar/guide.md": "---\ntitle: Solar Guide\ntags: [energy]\n---\n# Solar Guide\n\n" + copied + "\n" +
			"## Inverters\n\nAn inverter turns the panels' direct current into alternating current for the house.\n" + filler("inverters and solar current", 12) +
			"\n## Batteries\n\nBatteries store solar electricity for the night.\n" + filler("solar batteries", 12) +
			"\n## Mounting\n\nPanels face south at the latitude's angle.\n" + filler("mounting solar panels", 12),
		"notes/copy.md":   "# Copied notes\n\n" + copied,
		"notes/short.md":  "# Short\n\nSolar panels on a balcony are enough for a laptop.\n",
		"other/garden.md": "# Garden\n\nTomatoes need full sun and deep watering.\n" + filler("tomatoes", 5),
		"other/bread.md":  "# Bread\n\nKnead the dough for ten minutes.\n",
	}
}

func askEngine(t *testing.T) (*braid.Engine, string) {
	t.Helper()
	dir := writeVault(t, askVault())
	e := openEngine(t, nil)
	overlap := 24 // split sections repeat lines: passages must not
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: dir, ChunkTokens: 64, ChunkOverlap: &overlap}}, nil); err != nil {
		t.Fatal(err)
	}
	return e, dir
}

func TestAsk(t *testing.T) {
	e, dir := askEngine(t)
	ctx := context.Background()
	// The guide's chunks overlap, so packs have lines to leave out.
	guide, err := e.Notes().Document("solar/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	overlaps, lastEnd := 0, 0
	for _, id := range guide.ChunkIDs {
		c, err := e.Notes().Cite(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if c.StartLine <= lastEnd {
			overlaps++
		}
		lastEnd = c.EndLine
	}
	if overlaps == 0 {
		t.Fatal("the guide's chunks do not overlap; the test needs them to")
	}
	for _, budget := range []int{braid.MinAskBudget, 300, braid.DefaultAskBudget} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			p, err := e.Ask(ctx, "how do solar panels make electricity", braid.AskOptions{Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			checkPack(t, e, dir, p, budget)
			if p.Passages == 0 {
				t.Fatalf("no passages: %+v", p)
			}
		})
	}
	// The default budget holds every solar passage but one copy of the
	// copied paragraph: the other is named in its duplicates.
	p, err := e.Ask(ctx, "solar panels silicon cells", braid.AskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkPack(t, e, dir, p, braid.DefaultAskBudget)
	if p.Dropped.Duplicate == 0 {
		t.Errorf("no duplicate dropped: %+v", p.Dropped)
	}
	var dups []string
	for _, d := range p.Documents {
		for _, ps := range d.Passages {
			dups = append(dups, ps.Duplicates...)
		}
	}
	if len(dups) != 1 || !strings.Contains(dups[0], "(notes/copy.md#L") && !strings.Contains(dups[0], "(solar/guide.md#L") {
		t.Errorf("duplicates %q, want the other copy of the paragraph", dups)
	}
	// Filters are Search's.
	p, err = e.Ask(ctx, "solar panels", braid.AskOptions{PathGlob: "notes/**"})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range p.Documents {
		if !strings.HasPrefix(d.Path, "notes/") {
			t.Errorf("path filter notes/** let %s in", d.Path)
		}
	}
	// Nothing matches: an empty pack that says so.
	p, err = e.Ask(ctx, "zeppelin", braid.AskOptions{})
	if err != nil || p.Passages != 0 || len(p.Documents) != 0 || !strings.Contains(p.Warning, "no passage matches") {
		t.Errorf("Ask(zeppelin) = %+v, %v", p, err)
	}
}

// checkPack checks what every pack promises: within budget, tokens
// counted, citations that name the lines the text comes from, no lines
// twice, no near-duplicates, documents by their best rank and passages
// in line order.
func checkPack(t *testing.T, e *braid.Engine, dir string, p *braid.Pack, budget int) {
	t.Helper()
	if p.Budget != budget || p.Tokens > budget {
		t.Errorf("budget %d, tokens %d, want at most %d", p.Budget, p.Tokens, budget)
	}
	sum, n, lastRank := 0, 0, 0
	var texts []string
	for _, d := range p.Documents {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(d.Path)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		best, lastEnd := 1<<30, 0
		for i, ps := range d.Passages {
			n++
			best = min(best, ps.Rank)
			tokens := chunk.Count(ps.Tag) + chunk.Count(ps.Text)
			for _, dup := range ps.Duplicates {
				tokens += chunk.Count(dup)
			}
			if ps.Tokens != tokens {
				t.Errorf("%s: tokens %d, want %d", ps.Tag, ps.Tokens, tokens)
			}
			sum += ps.Tokens
			anchor := fmt.Sprintf("#L%d-L%d)", ps.StartLine, ps.EndLine)
			if ps.StartLine == ps.EndLine {
				anchor = fmt.Sprintf("#L%d)", ps.StartLine)
			}
			if want := "[" + d.Title + "](" + d.Path + anchor; ps.Tag != want {
				t.Errorf("tag %q, want %q", ps.Tag, want)
			}
			if !ps.Cut {
				c, err := e.Notes().Cite(context.Background(), ps.ChunkID)
				if err != nil || c.Tag != ps.Tag {
					t.Errorf("uncut passage tag %q, Cite says %+v, %v", ps.Tag, c, err)
				}
			}
			// The cited lines hold the text.
			span := strings.Join(lines[ps.StartLine-1:ps.EndLine], "\n")
			if !strings.Contains(span, ps.Text) || strings.TrimSpace(ps.Text) == "" {
				t.Errorf("%s: lines %d-%d do not hold the passage text %q", d.Path, ps.StartLine, ps.EndLine, ps.Text)
			}
			if i > 0 && ps.StartLine <= lastEnd {
				t.Errorf("%s: passage at line %d overlaps or precedes the one ending at %d", d.Path, ps.StartLine, lastEnd)
			}
			lastEnd = ps.EndLine
			texts = append(texts, ps.Text)
		}
		if best < lastRank {
			t.Errorf("document %s (best rank %d) comes after one of best rank %d", d.Path, best, lastRank)
		}
		lastRank = best
	}
	if sum != p.Tokens || n != p.Passages {
		t.Errorf("passages add up to %d tokens in %d passages; pack says %d in %d", sum, n, p.Tokens, p.Passages)
	}
	for i := range texts {
		for j := range i {
			if texts[i] == texts[j] {
				t.Errorf("passage text twice: %q", texts[i])
			}
		}
	}
}

func TestAskBadInput(t *testing.T) {
	e, _ := askEngine(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, question string
		budget         int
		want           error
		text           string
	}{
		{"empty", "", 0, braid.ErrEmptyQuery, ""},
		{"blank", " \t\n", 0, braid.ErrEmptyQuery, ""},
		{"too long", strings.Repeat("solar ", 700), 0, braid.ErrQueryTooLong, "4096"},
		{"budget low", "solar", 99, braid.ErrBadOption, "budget 99 tokens out of range, want 100..16000"},
		{"budget high", "solar", 16001, braid.ErrBadOption, "want 100..16000"},
		{"budget negative", "solar", -5, braid.ErrBadOption, "want 100..16000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Ask(ctx, tc.question, braid.AskOptions{Budget: tc.budget})
			if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), tc.text) {
				t.Errorf("Ask = %v, want %v containing %q", err, tc.want, tc.text)
			}
		})
	}
}

// Every search of an index without documents (a new one, or one a typo in
// --index made) says so, naming the directory and the fix, instead of
// bleve's "field stat for bm25 not present content" (issue 35, point 1).
func TestEmptyIndexSays(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "idx")
	e, err := braid.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	zero := 0.0
	want := "no documents indexed yet in " + dir + "; run braid index PATH"
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"search", func() error { _, err := e.Search(ctx, "solar", braid.SearchOptions{}); return err }},
		{"keyword", func() error { _, err := e.Search(ctx, "solar", braid.SearchOptions{Keyword: true}); return err }},
		{"weight 0", func() error { _, err := e.Search(ctx, "solar", braid.SearchOptions{VectorWeight: &zero}); return err }},
		{"hash", func() error { _, err := e.Search(ctx, "", braid.SearchOptions{Hash: "0123456789abcdef"}); return err }},
		{"ask", func() error { _, err := e.Ask(ctx, "solar", braid.AskOptions{}); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if !errors.Is(err, braid.ErrEmptyIndex) || err.Error() != want {
				t.Errorf("got %v, want ErrEmptyIndex saying %q", err, want)
			}
		})
	}
	// One document is enough to search.
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: writeVault(t, map[string]string{"a.md": "# Solar\n\nsolar panels\n"})}}, nil); err != nil {
		t.Fatal(err)
	}
	if res, err := e.Search(ctx, "solar", braid.SearchOptions{}); err != nil || len(res.Results) != 1 {
		t.Errorf("search after one document: %v, %v; want one hit", res, err)
	}
}

// Ask over a hybrid search (the tiny embedding model): the same promises.
func TestAskHybrid(t *testing.T) {
	dir := writeVault(t, askVault())
	e, _ := tinyEngine(t, filepath.Join(t.TempDir(), "idx"))
	overlap := 24
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: dir, ChunkTokens: 64, ChunkOverlap: &overlap}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, w := range []float64{braid.DefaultVectorWeight, 1} {
		p, err := e.Ask(context.Background(), "how do solar panels make electricity", braid.AskOptions{Budget: 600, VectorWeight: &w})
		if err != nil {
			t.Fatal(err)
		}
		checkPack(t, e, dir, p, 600)
		if p.Passages == 0 || p.Warning != "" {
			t.Errorf("vector_weight %v: %d passages, warning %q", w, p.Passages, p.Warning)
		}
	}
}
