package graph

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

var gapDocs = []Doc{
	{Node: Node{ID: "compost", Path: "Compost.md", Title: "Compost"}, Text: "Compost turns kitchen scraps into humus. Turn the compost heap weekly; worms and humus feed the soil."},
	{Node: Node{ID: "soil", Path: "Soil.md", Title: "Soil"}, Text: "Healthy soil is rich in humus. Add compost and worms to the soil, turn it in spring."},
	{Node: Node{ID: "borrow", Path: "Borrow.md", Title: "Borrowing"}, Text: "The borrow checker verifies every reference: lifetimes, mutable borrows and shared borrows."},
	{Node: Node{ID: "life", Path: "Lifetimes.md", Title: "Lifetimes"}, Text: "Lifetimes tell the borrow checker how long a reference lives; mutable borrows are exclusive."},
	{Node: Node{ID: "piano", Path: "Piano.md", Title: "Piano"}, Text: "Play the scale slowly on the piano, then faster, hands apart."},
	{Node: Node{ID: "bread", Path: "Bread.md", Title: "Bread"}, Text: "Knead the dough, let it rise overnight, bake it hot. 5c213aa6 1bdcb33ce202"},
}

func TestGapsLexical(t *testing.T) {
	linked := func(a, b string) bool { return MakePair(a, b) == MakePair("life", "borrow") }
	gaps, vectors, err := Gaps(gapDocs, linked, exactNearest, GapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if vectors {
		t.Error("Gaps used vectors, want the lexical method: no document has one")
	}
	if len(gaps) != 1 {
		t.Fatalf("gaps %+v, want one: compost and soil (borrow and lifetimes are linked)", gaps)
	}
	g := gaps[0]
	if MakePair(g.A.ID, g.B.ID) != MakePair("compost", "soil") || g.Similarity < DefaultLexicalThreshold || g.Similarity > 1 {
		t.Errorf("gap %s-%s %.3f, want compost-soil at least %.2f", g.A.ID, g.B.ID, g.Similarity, DefaultLexicalThreshold)
	}
	for _, w := range []string{"humus", "worms"} {
		if !strings.Contains(strings.Join(g.Terms, " "), w) {
			t.Errorf("terms %q lack %q", g.Terms, w)
		}
	}
	// Compost's text names Soil: cite it.
	if diff := gocmp.Diff(Suggestion{Type: Cites, From: "compost", To: "soil"}, g.Suggest); diff != "" {
		t.Errorf("suggestion (-want +got):\n%s", diff)
	}
	if !strings.Contains(g.Reason, "tf-idf") || !strings.Contains(g.Reason, `"Compost" names "Soil"`) {
		t.Errorf("reason %q, want the method and the mention", g.Reason)
	}
	// Without the link, the Rust pair is a gap too, and the list is best first.
	gaps, _, _ = Gaps(gapDocs, nil, exactNearest, GapOptions{Threshold: 0.1})
	if len(gaps) < 2 {
		t.Fatalf("unlinked: gaps %+v, want at least two", gaps)
	}
	for i := 1; i < len(gaps); i++ {
		if gaps[i].Similarity > gaps[i-1].Similarity {
			t.Errorf("gaps not best first: %v then %v", gaps[i-1].Similarity, gaps[i].Similarity)
		}
	}
	if gaps, _, _ := Gaps(gapDocs, nil, exactNearest, GapOptions{Threshold: 0.1, Limit: 1}); len(gaps) != 1 {
		t.Errorf("limit 1 gave %d gaps", len(gaps))
	}
}

func TestGapsVectors(t *testing.T) {
	docs := []Doc{
		{Node: Node{ID: "a", Title: "A"}, Text: "alpha", Vector: []float32{1, 0, 0, 0.1}},
		{Node: Node{ID: "b", Title: "B"}, Text: "alpha", Vector: []float32{1, 0.05, 0, 0.12}},
		{Node: Node{ID: "c", Title: "C"}, Text: "gamma", Vector: []float32{0, 1, 0, 0}},
		{Node: Node{ID: "d", Title: "D"}, Text: "gamma", Vector: []float32{0, 1, 0.3, 0}},
		{Node: Node{ID: "e", Title: "E"}, Text: "none", Vector: []float32{0, 0, 0, 1}},
		{Node: Node{ID: "f", Title: "F"}, Text: "no vector"},
	}
	linked := func(x, y string) bool { return MakePair(x, y) == Pair{"c", "d"} }
	gaps, vectors, err := Gaps(docs, linked, exactNearest, GapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !vectors || len(gaps) != 1 || MakePair(gaps[0].A.ID, gaps[0].B.ID) != (Pair{"a", "b"}) || gaps[0].Similarity < 0.99 {
		t.Fatalf("gaps %+v (vectors %v), want a-b only, 0.99 similar", gaps, vectors)
	}
	if !strings.Contains(gaps[0].Reason, "embeddings") || gaps[0].Suggest.Type != "related" {
		t.Errorf("reason %q suggestion %+v", gaps[0].Reason, gaps[0].Suggest)
	}
	if gaps, _, _ := Gaps(docs, nil, exactNearest, GapOptions{Threshold: 0.9}); len(gaps) != 2 {
		t.Errorf("unlinked at 0.9: %d gaps, want a-b and c-d", len(gaps))
	}
	for _, opt := range []GapOptions{{Threshold: 1.5}, {Limit: -1}, {Neighbors: -2}} {
		if _, _, err := Gaps(docs, nil, exactNearest, opt); err == nil {
			t.Errorf("options %+v accepted", opt)
		}
	}
	bad := append(docs[:1:1], Doc{Node: Node{ID: "z"}, Vector: []float32{1, 2}})
	if _, _, err := Gaps(bad, nil, exactNearest, GapOptions{}); err == nil {
		t.Error("vectors of two lengths accepted")
	}
}

func TestWords(t *testing.T) {
	var got []string
	words("The Borrow-checker's 3 ids 5c213aa6 1bdcb33ce202 mp3 x86 Über https://www.example.com café", func(w string) { got = append(got, w) })
	want := []string{"borrow", "checker", "ids", "mp3", "über", "example", "café"}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("words (-want +got):\n%s", diff)
	}
}

func TestMentions(t *testing.T) {
	for _, tt := range []struct {
		text, title string
		want        bool
	}{
		{"see the Soil page", "soil", true},
		{"topsoil is not soil?", "Soil", true},
		{"topsoil only", "Soil", false},
		{"go go", "Go", false}, // too short to mean anything
	} {
		if got := mentions(tt.text, tt.title); got != tt.want {
			t.Errorf("mentions(%q, %q) = %v", tt.text, tt.title, got)
		}
	}
}

// exactNearest is a Nearest by brute force: every pair's cosine.
func exactNearest(vecs [][]float32, k int) ([][]Neighbor, error) {
	out := make([][]Neighbor, len(vecs))
	for i, a := range vecs {
		for j, b := range vecs {
			var dot, na, nb float64
			for x := range a {
				dot += float64(a[x]) * float64(b[x])
				na += float64(a[x]) * float64(a[x])
				nb += float64(b[x]) * float64(b[x])
			}
			out[i] = append(out[i], Neighbor{Index: j, Score: dot / math.Sqrt(na*nb)})
		}
		slices.SortFunc(out[i], func(x, y Neighbor) int { return cmp.Compare(y.Score, x.Score) })
		out[i] = out[i][:min(k, len(out[i]))]
	}
	return out, nil
}
