package snippet_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/braidsearch/braid/snippet"
	"github.com/google/go-cmp/cmp"
)

func Example() {
	text := "Setup\n\nPlugins load from the plugins folder when the app starts."
	snip, marks := snippet.Best(text, snippet.Terms([]string{"plugin", "loading"}), 240)
	fmt.Println(snip)
	for _, m := range marks {
		fmt.Printf("%q ", snip[m.Start:m.End])
	}
	// Output:
	// Setup  Plugins load from the plugins folder when the app starts.
	// "Plugins" "load" "plugins"
}

func TestBest(t *testing.T) {
	long := strings.Repeat("filler words here ", 30) + "the quartz vein " + strings.Repeat("more filler text ", 30)
	tests := []struct {
		name       string
		text       string
		words      []string
		width      int
		want       string
		wantMarked []string
	}{
		{"short whole", "A quartz vein.", []string{"quartz"}, 240, "A quartz vein.", []string{"quartz"}},
		{"no match keeps the start", "alpha beta gamma delta", []string{"zeta"}, 11, "alpha beta", nil},
		{"window around the match", long, []string{"quartz"}, 40, "the quartz vein more filler text", []string{"quartz"}},
		{"tabs and newlines are spaces", "one\ttwo\nthree", []string{"two"}, 240, "one two three", []string{"two"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snip, marks := snippet.Best(tt.text, snippet.Terms(tt.words), tt.width)
			var marked []string
			for _, m := range marks {
				marked = append(marked, snip[m.Start:m.End])
			}
			if diff := cmp.Diff(tt.want, snip); diff != "" {
				t.Errorf("snippet (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantMarked, marked); diff != "" {
				t.Errorf("marked words (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzBest checks that a snippet is valid UTF-8 when its text is, at most
// width bytes and the rest of a rune longer, and that every mark lies
// inside it.
func FuzzBest(f *testing.F) {
	f.Add("Plugins load from the plugins folder.", "plugin", 12)
	f.Add("héllo wörld ünïcode text "+strings.Repeat("x ", 100)+"wörld", "wörld", 20)
	f.Fuzz(func(t *testing.T, text, word string, width int) {
		if width < 1 || width > 1000 || !utf8.ValidString(text) {
			return
		}
		snip, marks := snippet.Best(text, snippet.Terms([]string{word}), width)
		if !utf8.ValidString(snip) {
			t.Fatalf("Best(%q, %q, %d) = %q, not UTF-8", text, word, width, snip)
		}
		if len(snip) > width+utf8.UTFMax-1 {
			t.Fatalf("Best(%q, %q, %d) = %q, over the width", text, word, width, snip)
		}
		for _, m := range marks {
			if m.Start < 0 || m.Start >= m.End || m.End > len(snip) {
				t.Fatalf("Best(%q, %q, %d): mark %+v outside %q", text, word, width, m, snip)
			}
		}
	})
}

func TestMark(t *testing.T) {
	for _, tc := range []struct {
		name   string
		text   string
		ranges []snippet.Range
		want   string
	}{
		{"none", " plain text ", nil, "plain text"},
		{"two", "a cat and a dog", []snippet.Range{{2, 5}, {12, 15}}, "a «cat» and a «dog»"},
		{"overlapping and past the end left out", "a cat", []snippet.Range{{2, 5}, {3, 4}, {4, 9}}, "a «cat»"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := snippet.Mark(tc.text, tc.ranges, "«", "»"); got != tc.want {
				t.Errorf("Mark = %q, want %q", got, tc.want)
			}
		})
	}
}
