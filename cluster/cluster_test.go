package cluster

import (
	"testing"

	"github.com/braidsearch/braid/lexical"
	"github.com/braidsearch/braid/opensearch"
	"github.com/google/go-cmp/cmp"
)

func TestFilter(t *testing.T) {
	tests := []struct {
		name   string
		req    lexical.Request
		want   opensearch.Filter
		wantOK bool
	}{
		{name: "none", wantOK: true},
		{
			name:   "sources and glob pass through",
			req:    lexical.Request{SourceIDs: []string{"a", "b"}, PathGlob: "notes/**"},
			want:   opensearch.Filter{Sources: []string{"a", "b"}, PathGlob: "notes/**"},
			wantOK: true,
		},
		{
			name:   "tags lose their # and case",
			req:    lexical.Request{Tags: []string{"#Project", "todo", "#a/B"}},
			want:   opensearch.Filter{Tags: []string{"project", "todo", "a/b"}},
			wantOK: true,
		},
		{
			name:   "documents named",
			req:    lexical.Request{DocIDs: []string{"d1"}},
			want:   opensearch.Filter{DocIDs: []string{"d1"}},
			wantOK: true,
		},
		{
			name: "a metadata filter that matched nothing keeps nothing",
			req:  lexical.Request{DocIDs: []string{}, SourceIDs: []string{"a"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Filter(tc.req)
			if ok != tc.wantOK {
				t.Fatalf("Filter ok = %v, want %v", ok, tc.wantOK)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Filter (-want +got):\n%s", diff)
			}
		})
	}
}
