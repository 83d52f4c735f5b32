package query

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Query
		err  error
	}{
		{"words", "install plugins", Query{Terms: []string{"install", "plugins"}}, nil},
		{"phrase", `"space script" api`, Query{Terms: []string{"api"}, Phrases: []string{"space script"}}, nil},
		{"unterminated phrase", `find "open quote`, Query{Terms: []string{"find"}, Phrases: []string{"open quote"}}, nil},
		{"exclude", "markdown -table", Query{Terms: []string{"markdown"}, Excluded: []string{"table"}}, nil},
		{"lone dash is dropped", "a - b", Query{Terms: []string{"a", "b"}}, nil},
		{"empty", "   ", Query{}, ErrEmptyQuery},
		{"only excluded", "-foo", Query{Excluded: []string{"foo"}}, ErrEmptyQuery},
		{"empty phrase", `""`, Query{}, ErrEmptyQuery},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if !errors.Is(err, tt.err) {
				t.Fatalf("Parse(%q) error = %v, want %v", tt.in, err, tt.err)
			}
			tt.want.Text = tt.in
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseQueryRejects(t *testing.T) {
	for _, in := range []string{"bad \xff utf8", strings.Repeat("a", MaxQueryLen+1)} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%.20q…) = nil error, want one", in)
		}
	}
	_, err := Parse(strings.Repeat("ab ", 2000))
	if want := "index: query too long: it is 6000 bytes; the limit is 4096 bytes; shorten it"; !errors.Is(err, ErrQueryTooLong) || err.Error() != want {
		t.Errorf("ParseQuery of 6000 bytes: %v, want %q", err, want)
	}
	if _, err := Parse(strings.Repeat("a", MaxQueryLen)); err != nil {
		t.Errorf("ParseQuery at the limit: %v, want none", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"a b", `"x y" -z`, `"`, `-`, `--`, `""""`, "\"a\tb\" c", "日本 \"語\"", "-\"x\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		if err != nil {
			return
		}
		if len(q.Terms)+len(q.Phrases) == 0 {
			t.Fatalf("Parse(%q) gave nothing to search and no error", s)
		}
		for _, w := range append(append(q.Terms, q.Phrases...), q.Excluded...) {
			if w == "" || !utf8.ValidString(w) || !strings.Contains(s, w) {
				t.Fatalf("Parse(%q): part %q is empty, invalid or not from the input", s, w)
			}
		}
		// Written back out (terms, "phrases", -exclusions), the parts
		// parse to themselves.
		var parts []string
		parts = append(parts, q.Terms...)
		for _, p := range q.Phrases {
			parts = append(parts, `"`+p+`"`)
		}
		for _, x := range q.Excluded {
			parts = append(parts, "-"+x)
		}
		back := strings.Join(parts, " ")
		if len(back) > MaxQueryLen {
			return // closing an open quote can push it over the limit
		}
		again, err := Parse(back)
		if err != nil {
			t.Fatalf("Parse(%q) gave %+v, which written back does not parse: %v", s, q, err)
		}
		again.Text = q.Text
		if diff := cmp.Diff(q, again); diff != "" {
			t.Fatalf("Parse(%q) written back parses differently (-first +again):\n%s", s, diff)
		}
	})
}

func TestSemantic(t *testing.T) {
	for in, want := range map[string]string{
		"how do I write a space-script?":       "how do I write a space-script?",
		`tomatoes -pests "full sun"  watering`: "tomatoes full sun watering",
		`"keep -this" -drop C++`:               "keep -this C++",
		"line\none":                            "line one",
	} {
		q, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.Semantic(); got != want {
			t.Errorf("Semantic(%q) = %q, want %q", in, got, want)
		}
	}
}
