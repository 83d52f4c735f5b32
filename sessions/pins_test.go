package sessions_test

import (
	"testing"

	"github.com/braidsearch/braid/sessions"
)

// PinProblem refuses the pins that select nothing whatever the index
// holds, and only those.
func TestPinProblem(t *testing.T) {
	for _, tc := range []struct {
		pin  string
		want string // in the reason; "" for a pin that can select documents
	}{
		{"/", "names no document"},
		{"//", "names no document"},
		{".", "names no document"},
		{"./", "names no document"},
		{"../x", `climbs out with ".."`},
		{"notes/../../x", `climbs out with ".."`},
		{"/home/u/../x", `climbs out with ".."`},
		{"file:///etc/passwd", "is a URL"},
		{"s3://bucket/notes", "is a URL"},
		{"notes/*.md", ""},
		{"./notes", ""},
		{"/home/u/notes", ""},
		{"**", ""},
		{"a..b.md", ""},
		{"store:ideas", ""},
	} {
		got := sessions.PinProblem(tc.pin)
		if tc.want == "" && got != "" || tc.want != "" && (len(got) < len(tc.want) || got[:len(tc.want)] != tc.want) {
			t.Errorf("PinProblem(%q) = %q, want %q", tc.pin, got, tc.want)
		}
	}
}
