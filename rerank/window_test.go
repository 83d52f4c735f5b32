package rerank

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWindow(t *testing.T) {
	filler := strings.Repeat("lorem ipsum dolor sit amet. ", 20) // 120 tokens
	for _, tc := range []struct {
		name, query, text string
		tokens            int
		want              string
	}{
		{"short text whole", "plugins", "How plugins load.", 10, "How plugins load."},
		{"exact length whole", "x", "a b c", 3, "a b c"},
		{"zero tokens whole", "x", "a b c d", 0, "a b c d"},
		{"negative tokens whole", "x", "a b c d", -1, "a b c d"},
		{"empty text", "x", "", 5, ""},
		{"no match gives head", "zebra", "one two three four five", 2, "one two"},
		{"match in the middle", "plugins load", filler + "Plugins load lazily here. " + filler, 4, "Plugins load lazily here"},
		{"stemmed plural", "plugin", "a b c d plugins e f", 1, "plugins"},
		{"case folded", "MARKDOWN", "a b Markdown c", 1, "Markdown"},
		{"distinct terms beat repeats", "cache disk", "cache cache cache x y z cache disk", 2, "cache disk"},
		{"stop words ignored", "how is the cache", "the the the is is how x cache", 1, "cache"},
		{"stop words alone count", "how is the", "x y z the q", 1, "the"},
		{"punctuation is a token", "b", "a , , , b !", 2, "b !"},
		{"multibyte runes kept whole", "café", "naïve x y café über z", 2, "café über"},
		{"ties go first", "a", "a x a x", 2, "a x"},
		{"matches centred", "b", "a a a a b a a a a", 3, "a b a"},
		{"sentence start", "b", "a a a. a b a a a a", 5, "a b a a a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Window(tc.query, tc.text, tc.tokens); got != tc.want {
				t.Errorf("Window(%q, %.40q…, %d) = %q, want %q", tc.query, tc.text, tc.tokens, got, tc.want)
			}
		})
	}
}

func TestTokenize(t *testing.T) {
	s := "Hi, wörld!\t42x \xff end"
	var got []string
	for _, sp := range tokenize(s) {
		got = append(got, s[sp.start:sp.end])
	}
	want := []string{"Hi", ",", "wörld", "!", "42x", "\xff", "end"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("tokenize(%q) = %q, want %q", s, got, want)
	}
}

func FuzzWindow(f *testing.F) {
	f.Add("plugins load", "How do plugins load? They load lazily, from disk.", 3)
	f.Add("café", "naïve café über 東京 tokyo", 2)
	f.Add("", "", 0)
	f.Add("a", "\xff\xfe a \xc3", 1)
	f.Fuzz(func(t *testing.T, query, text string, tokens int) {
		tokens %= 1000
		got := Window(query, text, tokens)
		if !strings.Contains(text, got) {
			t.Fatalf("Window(%q, %q, %d) = %q, not a substring", query, text, tokens, got)
		}
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Fatalf("Window(%q, %q, %d) = %q splits a rune", query, text, tokens, got)
		}
		if n := len(tokenize(got)); tokens > 0 && n > tokens {
			t.Fatalf("Window(%q, %q, %d) = %q has %d tokens", query, text, tokens, got, n)
		}
	})
}
