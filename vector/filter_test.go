package vector

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSearchKept(t *testing.T) {
	x := New(2, nil)
	for i := range 20 {
		if err := x.Add(fmt.Sprintf("v%02d", i), []float32{1, float32(i) / 10}); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(rs []Result) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	all, err := x.SearchKept([]float32{1, 0}, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"v00", "v01", "v02"}, ids(all)); diff != "" {
		t.Errorf("unfiltered (-want +got):\n%s", diff)
	}
	odd := func(id string) (bool, error) { return strings.ContainsRune("13579", rune(id[len(id)-1])), nil }
	kept, err := x.SearchKept([]float32{1, 0}, 3, odd)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"v01", "v03", "v05"}, ids(kept)); diff != "" {
		t.Errorf("odd only (-want +got):\n%s", diff)
	}
	boom := errors.New("boom")
	if _, err := x.SearchKept([]float32{1, 0}, 3, func(string) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Errorf("a failing filter: %v, want boom", err)
	}
}
