package notes

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestContentSlice(t *testing.T) {
	c := &Content{Data: []byte("one\ntwo\nthree\n")}
	for _, tc := range []struct {
		name  string
		at    Lines
		text  string
		got   Lines
		total int
	}{
		{"every line", Lines{Start: 1}, "one\ntwo\nthree\n", Lines{Start: 1, End: 3}, 3},
		{"a range", Lines{Start: 2, End: 2}, "two\n", Lines{Start: 2, End: 2}, 3},
		{"end past the last line", Lines{Start: 2, End: 9}, "two\nthree\n", Lines{Start: 2, End: 3}, 3},
		{"start past the last line", Lines{Start: 4}, "", Lines{}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, got, total := c.Slice(tc.at)
			if diff := cmp.Diff([]any{tc.text, tc.got, tc.total}, []any{text, got, total}); diff != "" {
				t.Errorf("Slice(%+v) (-want +got):\n%s", tc.at, diff)
			}
		})
	}
	if text, _, total := (&Content{Data: []byte("no newline")}).Slice(Lines{Start: 1}); text != "no newline" || total != 1 {
		t.Errorf("Slice of a last line without newline: %q, %d lines", text, total)
	}
}
