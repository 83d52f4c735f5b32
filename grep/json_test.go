package grep

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestJSON(t *testing.T) {
	hit := Result{File: File{Path: "/x/a.md", Name: "a.md"}, Count: 1, Lines: []Line{
		{Number: 1, Text: "<b>", Match: false},
		{Number: 2, Text: "a & b", Match: true, Ranges: [][2]int{{0, 1}}},
	}}
	miss := Result{File: File{Path: "/x/b.md", Name: "b.md"}}
	tests := []struct {
		name string
		j    JSON
		want string
	}{
		{"lines", JSON{}, `{"path":"a.md","line":1,"text":"<b>","match":false}
{"path":"a.md","line":2,"text":"a & b","match":true,"ranges":[{"start":0,"end":1}]}
`},
		{"count", JSON{Count: true}, `{"path":"a.md","count":1}
`},
		{"without", JSON{FilesWithoutMatch: true}, `{"path":"b.md","count":0}
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			for _, r := range []Result{hit, miss} {
				if err := tc.j.Write(&b, r); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tc.want, b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
