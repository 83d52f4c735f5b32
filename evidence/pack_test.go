package evidence

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The count line of braid ask says "1 passage from 1 document", not
// "1 passages from 1 documents" (issue 35, point 4c).
func TestTextCounts(t *testing.T) {
	two := []Passage{{Tag: "[A](a.md#L1-L2)", Text: "a"}, {Tag: "[A](a.md#L5-L6)", Text: "b"}}
	for _, tc := range []struct {
		name string
		pack Pack
		want string
	}{
		{"one of each", Pack{Passages: 1, Tokens: 10, Budget: 2000, Documents: []Document{{Title: "A", Path: "a.md", Passages: two[:1]}}},
			"1 passage from 1 document, 10 of 2000 tokens"},
		{"two passages, one document", Pack{Passages: 2, Tokens: 20, Budget: 2000, Documents: []Document{{Title: "A", Path: "a.md", Passages: two}}},
			"2 passages from 1 document, 20 of 2000 tokens"},
		{"none", Pack{Budget: 2000}, "0 passages from 0 documents, 0 of 2000 tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, _, _ := strings.Cut(tc.pack.Text(), ";")
			if diff := cmp.Diff(tc.want, first); diff != "" {
				t.Errorf("count line (-want +got):\n%s", diff)
			}
		})
	}
}
