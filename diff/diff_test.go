package diff

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnified(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "x\ny\n", "x\ny\n", ""},
		{"change in the middle", "a\nb\nc\nd\ne\n", "a\nb\nC\nd\ne\n",
			"--- v1\n+++ v2\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n"},
		{"from empty", "", "new\nlines\n", "--- v1\n+++ v2\n@@ -0,0 +1,2 @@\n+new\n+lines\n"},
		{"to empty", "old\n", "", "--- v1\n+++ v2\n@@ -1 +0,0 @@\n-old\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\nX\n3\n4\n5\n6\n7\n8\nY\n10\n",
			"--- v1\n+++ v2\n@@ -1,3 +1,3 @@\n 1\n-2\n+X\n 3\n@@ -8,3 +8,3 @@\n 8\n-9\n+Y\n 10\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Unified("v1", "v2", tt.a, tt.b, 1)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestLinesRoundTrip checks on random texts that the script rebuilds both
// sides and is no longer than an LCS-based one.
func TestLinesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	gen := func() []string {
		out := make([]string, r.Intn(12))
		for i := range out {
			out[i] = string(rune('a' + r.Intn(4)))
		}
		return out
	}
	for i := 0; i < 500; i++ {
		a, b := gen(), gen()
		es := edits(a, b)
		var ga, gb []string
		changes := 0
		for _, e := range es {
			if e.Op != Insert {
				ga = append(ga, e.Line)
			}
			if e.Op != Delete {
				gb = append(gb, e.Line)
			}
			if e.Op != Equal {
				changes++
			}
		}
		if strings.Join(ga, ",") != strings.Join(a, ",") || strings.Join(gb, ",") != strings.Join(b, ",") {
			t.Fatalf("script for %v -> %v rebuilds %v -> %v", a, b, ga, gb)
		}
		if want := len(a) + len(b) - 2*lcs(a, b); changes != want {
			t.Fatalf("%v -> %v: %d changes, want %d (not shortest)", a, b, changes, want)
		}
	}
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}
