package index

import (
	"errors"
	"slices"
	"testing"
)

// Commit's beside runs once the store holds the changes, with the chunks
// they remove and add, and its error is Commit's when the commit itself
// succeeded; the lexical batch is applied either way.
func TestCommitBeside(t *testing.T) {
	c := newCountsIndex(t)
	first := []Change{c.change("a", false), c.change("b", false)}
	if _, _, err := Commit(c.st, c.lex, first, nil); err != nil {
		t.Fatal(err)
	}
	second := []Change{c.change("a", false), {DeleteID: "b"}}
	boom := errors.New("the vectors failed")
	var gotDel, gotAdd []string
	_, added, err := Commit(c.st, c.lex, second, func(deleted []string, added []*Chunk) error {
		gotDel = slices.Clone(deleted)
		for _, ch := range added {
			gotAdd = append(gotAdd, ch.ID)
			if got, err := c.st.Chunks([]string{ch.ID}); err != nil || len(got) != 1 || got[0] == nil {
				t.Errorf("beside: the store does not hold chunk %s yet (%v, %v)", ch.ID, got, err)
			}
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("Commit = %v, want beside's error", err)
	}
	var want []string
	for _, ch := range added {
		want = append(want, ch.ID)
	}
	if len(want) == 0 || !slices.Equal(gotAdd, want) {
		t.Errorf("beside added %v, want %v", gotAdd, want)
	}
	var wantDel []string
	for _, ch := range first[0].Chunks {
		wantDel = append(wantDel, ch.ID)
	}
	for _, ch := range first[1].Chunks {
		wantDel = append(wantDel, ch.ID)
	}
	slices.Sort(gotDel)
	slices.Sort(wantDel)
	if !slices.Equal(gotDel, wantDel) {
		t.Errorf("beside deleted %v, want %v", gotDel, wantDel)
	}
	if n, err := c.lex.DocCount(); err != nil || int(n) != len(want) {
		t.Errorf("lexical index holds %d chunks (%v), want %d", n, err, len(want))
	}
}
