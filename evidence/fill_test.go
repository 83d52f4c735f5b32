package evidence

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/notes"
)

// solar is one document's lines, each a distinct sentence long enough
// that three of them outweigh minPassageTokens.
var solar = []string{
	"Solar panels turn the sunlight that falls on them into direct current.",
	"Each silicon cell makes about half a volt, so cells are wired in series.",
	"An inverter changes the direct current into alternating current for the house.",
	"Batteries keep the charge of a sunny afternoon for the dark hours of the night.",
	"Panels face south, tilted at about the angle of the latitude where they stand.",
	"Cleaning the glass twice a year keeps the output of the panels close to new.",
}

// fakeReader serves chunks from a map and cites them as notes does:
// [Title](path#Lstart-Lend). A chunk in notFound is read but not cited.
type fakeReader struct {
	chunks   map[string]*index.Chunk
	titles   map[string]string // by document id; the path is id + ".md"
	notFound map[string]bool
}

func (f fakeReader) reader() Reader {
	return Reader{
		Chunk: func(_ context.Context, id string) (*index.Chunk, error) { return f.chunks[id], nil },
		Cite: func(_ context.Context, id string) (*notes.Citation, error) {
			c := f.chunks[id]
			if c == nil || f.notFound[id] {
				return nil, fmt.Errorf("cite %s: %w", id, index.ErrNotFound)
			}
			path := c.DocID + ".md"
			return &notes.Citation{ChunkID: id, Document: c.DocID, Title: f.titles[c.DocID], Path: path, File: "/vault/" + path,
				HeadingPath: c.HeadingPath, StartLine: c.StartLine, EndLine: c.EndLine,
				Tag: retag("["+f.titles[c.DocID]+"]("+path+"#L0)", c.StartLine, c.EndLine)}, nil
		},
	}
}

// lines makes a chunk of doc's lines from..to (1-based) of text.
func lines(id, doc string, text []string, from, to int) *index.Chunk {
	return &index.Chunk{ID: id, DocID: doc, Text: strings.Join(text[from-1:to], "\n"), StartLine: from, EndLine: to}
}

func passage(id string, rank int, tag string, text []string, from, to int, cut bool, dups ...string) Passage {
	p := Passage{ChunkID: id, Rank: rank, StartLine: from, EndLine: to, Tag: tag, Text: strings.Join(text[from-1:to], "\n"), Cut: cut, Duplicates: dups}
	p.Tokens = chunk.Count(p.Tag) + chunk.Count(p.Text)
	for _, d := range dups {
		p.Tokens += chunk.Count(d)
	}
	return p
}

func TestFill(t *testing.T) {
	r := fakeReader{
		chunks: map[string]*index.Chunk{
			"a1":   lines("a1", "solar", solar, 1, 4),
			"a2":   lines("a2", "solar", solar, 3, 6), // lines 3 and 4 are a1's
			"a3":   lines("a3", "solar", solar, 2, 3), // every line a1's
			"b1":   lines("b1", "copy", solar, 1, 4),  // a1's text elsewhere
			"c1":   lines("c1", "other", []string{"Knead the dough for ten minutes, then let it rest."}, 1, 1),
			"lost": lines("lost", "other", []string{"Cited no longer."}, 1, 1),
		},
		titles:   map[string]string{"solar": "Solar", "copy": "Copy", "other": "Other"},
		notFound: map[string]bool{"lost": true},
	}
	hits := []Hit{{ChunkID: "a1", Score: 0.9}, {ChunkID: ""}, {ChunkID: "a2", Score: 0.8}, {ChunkID: "b1", Score: 0.7},
		{ChunkID: "gone"}, {ChunkID: "lost"}, {ChunkID: "a3", Score: 0.5}, {ChunkID: "c1", Score: 0.4}}
	got, err := Fill(context.Background(), hits, DefaultBudget, r.reader())
	if err != nil {
		t.Fatal(err)
	}
	a1 := passage("a1", 1, "[Solar](solar.md#L1-L4)", solar, 1, 4, false, "[Copy](copy.md#L1-L4)")
	a2 := passage("a2", 3, "[Solar](solar.md#L5-L6)", solar, 5, 6, true)
	c1 := passage("c1", 8, "[Other](other.md#L1)", []string{"Knead the dough for ten minutes, then let it rest."}, 1, 1, false)
	a1.Score, a2.Score, c1.Score = 0.9, 0.8, 0.4
	want := &Pack{
		Budget: DefaultBudget, Tokens: a1.Tokens + a2.Tokens + c1.Tokens, Passages: 3, Considered: len(hits),
		Dropped: Dropped{Overlap: 1, Duplicate: 1},
		Documents: []Document{
			{Document: "solar", Title: "Solar", Path: "solar.md", File: "/vault/solar.md", Passages: []Passage{a1, a2}},
			{Document: "other", Title: "Other", Path: "other.md", File: "/vault/other.md", Passages: []Passage{c1}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Fill (-want +got):\n%s", diff)
	}
}

// A chunk that does not fit whole is cut around the first line holding a
// highlighted word, and once the room left is too small the rest of the
// hits are over budget.
func TestFillCut(t *testing.T) {
	var long []string // each line of solar twice, so three lines fill more than MinBudget
	for _, l := range solar {
		long = append(long, l+" "+l)
	}
	r := fakeReader{chunks: map[string]*index.Chunk{"a": lines("a", "solar", long, 1, 6), "b": lines("b", "other", solar, 1, 1)},
		titles: map[string]string{"solar": "Solar", "other": "Other"}}
	tag := "[Solar](solar.md#L3-L5)"
	budget := chunk.Count(tag) + chunk.Count(strings.Join(long[2:5], "\n"))
	got, err := Fill(context.Background(), []Hit{{ChunkID: "a", Words: []string{"BATTERIES"}}, {ChunkID: "b"}, {ChunkID: "b"}}, budget, r.reader())
	if err != nil {
		t.Fatal(err)
	}
	want := &Pack{Budget: budget, Tokens: budget, Passages: 1, Considered: 3, Dropped: Dropped{Budget: 2},
		Documents: []Document{{Document: "solar", Title: "Solar", Path: "solar.md", File: "/vault/solar.md",
			Passages: []Passage{passage("a", 1, tag, long, 3, 5, true)}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Fill (-want +got):\n%s", diff)
	}
}

func TestFillErrors(t *testing.T) {
	r := fakeReader{chunks: map[string]*index.Chunk{"a": lines("a", "solar", solar, 1, 2)}, titles: map[string]string{"solar": "Solar"}}
	if _, err := Fill(context.Background(), nil, MinBudget-1, r.reader()); !errors.Is(err, index.ErrBadOption) {
		t.Errorf("Fill with budget %d = %v, want ErrBadOption", MinBudget-1, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Fill(ctx, []Hit{{ChunkID: "a"}}, DefaultBudget, r.reader()); !errors.Is(err, context.Canceled) {
		t.Errorf("Fill after cancel = %v, want context.Canceled", err)
	}
	boom := errors.New("boom")
	rd := r.reader()
	rd.Chunk = func(context.Context, string) (*index.Chunk, error) { return nil, boom }
	if _, err := Fill(context.Background(), []Hit{{ChunkID: "a"}}, DefaultBudget, rd); !errors.Is(err, boom) {
		t.Errorf("Fill with a failing chunk read = %v, want it", err)
	}
	rd = r.reader()
	rd.Cite = func(context.Context, string) (*notes.Citation, error) { return nil, boom }
	if _, err := Fill(context.Background(), []Hit{{ChunkID: "a"}}, DefaultBudget, rd); !errors.Is(err, boom) {
		t.Errorf("Fill with a failing citation = %v, want it", err)
	}
	p, err := Fill(context.Background(), nil, DefaultBudget, r.reader())
	if err != nil || p.Documents == nil || p.Passages != 0 || p.Tokens != 0 {
		t.Errorf("Fill of no hits = %+v, %v, want an empty pack with a non-nil document list", p, err)
	}
}

func TestBudget(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   int
		want int
		err  string
	}{
		{"zero is the default", 0, DefaultBudget, ""},
		{"least", MinBudget, MinBudget, ""},
		{"most", MaxBudget, MaxBudget, ""},
		{"too low", 99, 0, "invalid option: budget 99 tokens out of range, want 100..16000"},
		{"too high", 16001, 0, "budget 16001 tokens out of range, want 100..16000"},
		{"negative", -5, 0, "budget -5 tokens out of range, want 100..16000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Budget(tc.in)
			if got != tc.want || (err == nil) != (tc.err == "") || err != nil && (!errors.Is(err, index.ErrBadOption) || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("Budget(%d) = %d, %v, want %d and an error containing %q", tc.in, got, err, tc.want, tc.err)
			}
		})
	}
}

func TestFit(t *testing.T) {
	long := strings.Fields(strings.Repeat("photovoltaic output grows with the light ", 8))
	noTag := func(a, b int) int { return 0 }
	for _, tc := range []struct {
		name     string
		lines    []string
		at, room int
		text     string
		a, b     int
		ok       bool
	}{
		{"whole", solar, 2, MaxBudget, strings.Join(solar, "\n"), 0, 5, true},
		{"after, then before", solar, 2, chunk.Count(strings.Join(solar[1:4], "\n")), strings.Join(solar[1:4], "\n"), 1, 3, true},
		{"last line grows back", solar, 5, chunk.Count(strings.Join(solar[3:6], "\n")), strings.Join(solar[3:6], "\n"), 3, 5, true},
		{"long line cut at a word", []string{strings.Join(long, " ")}, 0, chunk.Count(strings.Join(long[:30], " ")), strings.Join(long[:30], " "), 0, 0, true},
		{"too little fits", solar, 0, minPassageTokens - 1, "", 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, a, b, ok := fit(tc.lines, tc.at, tc.room, noTag)
			if text != tc.text || a != tc.a || b != tc.b || ok != tc.ok {
				t.Errorf("fit = %q, %d, %d, %v, want %q, %d, %d, %v", text, a, b, ok, tc.text, tc.a, tc.b, tc.ok)
			}
		})
	}
	// The tag's cost counts against the room.
	room := chunk.Count(strings.Join(solar[1:4], "\n"))
	if _, a, b, _ := fit(solar, 2, room, func(a, b int) int { return 1 }); a != 2 || b != 3 {
		t.Errorf("fit with a tag of one token kept lines %d..%d, want 2..3", a, b)
	}
}

func TestFocus(t *testing.T) {
	for _, tc := range []struct {
		name  string
		words []string
		want  int
	}{
		{"first holding a word", []string{"zeppelin", "VOLT"}, 1},
		{"earliest line wins", []string{"night", "current"}, 0},
		{"none holds one", []string{"zeppelin"}, 0},
		{"no words", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := focus(solar, tc.words); got != tc.want {
				t.Errorf("focus(%q) = %d, want %d", tc.words, got, tc.want)
			}
		})
	}
}

func TestRetag(t *testing.T) {
	for _, tc := range []struct {
		name, tag string
		a, b      int
		want      string
	}{
		{"range", "[Solar](solar.md#L3-L9)", 4, 6, "[Solar](solar.md#L4-L6)"},
		{"one line", "[Solar](solar.md#L3-L9)", 5, 5, "[Solar](solar.md#L5)"},
		{"from one line", "[Solar](solar.md#L3)", 3, 4, "[Solar](solar.md#L3-L4)"},
		{"title with an anchor", "[C#Lang](c.md#L1-L2)", 2, 2, "[C#Lang](c.md#L2)"},
		{"no anchor", "[Solar](solar.md)", 1, 2, "[Solar](solar.md)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := retag(tc.tag, tc.a, tc.b); got != tc.want {
				t.Errorf("retag(%q, %d, %d) = %q, want %q", tc.tag, tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestSimilarity(t *testing.T) {
	for _, tc := range []struct {
		name, a, b string
		want       float64
	}{
		{"same words, case and punctuation aside", "Solar panels make power.", "solar, PANELS make power", 1},
		{"one trigram of three", "a b c d", "a b c e", 1.0 / 3},
		{"nothing shared", "solar panels make power", "knead the dough well", 0},
		{"short texts are one shingle", "solar panels", "solar panels", 1},
		{"short and different", "solar", "panels", 0},
		{"both empty", "", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := similarity(shingles(tc.a), shingles(tc.b)); got != tc.want {
				t.Errorf("similarity(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
	if sh := shingles("Solar panels, make power"); !cmp.Equal(sh, map[string]bool{"solar panels make": true, "panels make power": true}) {
		t.Errorf("shingles = %v", sh)
	}
}
