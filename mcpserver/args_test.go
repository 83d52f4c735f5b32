package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  string
		want searchArgs
		err  string // substring; empty means success
	}{
		{"nothing keeps the defaults", ``, searchArgs{Limit: 10, Fuzzy: true}, ""},
		{"null keeps the defaults", `null`, searchArgs{Limit: 10, Fuzzy: true}, ""},
		{"values replace defaults", `{"query":"q","limit":3,"fuzzy":false,"rerank":false,"tags":["a","b"]}`,
			searchArgs{Query: "q", Limit: 3, Tags: []string{"a", "b"}, Rerank: new(false)}, ""},
		{"null for one argument keeps its default", `{"limit":null}`, searchArgs{Limit: 10, Fuzzy: true}, ""},
		{"unknown name", `{"query":"q","limitt":1}`, searchArgs{}, `unknown argument "limitt"`},
		{"names match exactly", `{"Query":"q"}`, searchArgs{}, `unknown argument "Query"`},
		{"wrong type", `{"tags":"a"}`, searchArgs{}, "bad argument tags: got a JSON string, want an array of strings"},
		{"array for arguments", `["q"]`, searchArgs{}, "arguments must be a JSON object"},
		{"broken JSON", `{"query":`, searchArgs{}, "not valid JSON"},
		{"two objects", `{"query":"a"} {"query":"b"}`, searchArgs{}, "not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := searchArgs{Limit: 10, Fuzzy: true}
			err := decodeArgs(json.RawMessage(tc.raw), &got)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrBadArgument) {
					t.Fatalf("error %v, want ErrBadArgument with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// FuzzDecodeArgs feeds arbitrary argument bytes to the decoder: it never
// panics, every error is ErrBadArgument, and what it accepts names only
// known arguments.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"query":"q","limit":5}`, `{"tags":["a"]}`, `{"vector_weight":1e400}`,
		`{"limit":1.5}`, `{"query":"\u0000"}`, `{"x":1}`, `[]`, `{"query":"a"}{}`, `{"context":-3,"fuzzy":true}`} {
		f.Add([]byte(s))
	}
	known := argNames(&searchArgs{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		a := searchArgs{Limit: 10}
		err := decodeArgs(raw, &a)
		if err != nil {
			if !errors.Is(err, ErrBadArgument) {
				t.Fatalf("error %v is not ErrBadArgument", err)
			}
			if !utf8.ValidString(err.Error()) && utf8.Valid(raw) {
				t.Fatalf("error message is not UTF-8: %q", err)
			}
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return // empty or null
		}
		for k := range obj {
			if !slices.Contains(known, k) {
				t.Fatalf("accepted unknown argument %q in %s", k, raw)
			}
		}
		_ = a.check() // range checks must not panic either
	})
}

func TestScratchpadLRU(t *testing.T) {
	p := newScratchpad(2, 100)
	a := p.put("grep", strings.Repeat("a", 40))
	b := p.put("search", strings.Repeat("b", 40))
	if _, ok := p.get(a); !ok { // a is now the most recently used
		t.Fatal("a is gone")
	}
	c := p.put("grep", "c\nmore")
	if _, ok := p.get(b); ok {
		t.Error("b, the least recently used, was kept over the 2-entry limit")
	}
	var ids []string
	for _, e := range p.list() {
		ids = append(ids, fmt.Sprintf("%s %s %d %q", e.ID, e.Tool, e.Bytes, e.Preview))
	}
	want := []string{c + ` grep 6 "c"`, a + ` grep 40 "` + strings.Repeat("a", 40) + `"`}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	// The byte limit drops old entries too, but never the newest.
	d := p.put("grep", strings.Repeat("d", 150))
	if got := p.list(); len(got) != 1 || got[0].ID != d {
		t.Errorf("after a 150-byte entry with a 100-byte limit: %+v", got)
	}
}

func TestPage(t *testing.T) {
	text := "line one\nline two\nline three\n"
	for _, tc := range []struct {
		offset, n int
		want      string
		next      int
	}{
		{0, 100, text, len(text)},
		{0, 12, "line one\nlin", 12},   // the line break is too far back: cut at n
		{0, 10, "line one\n", 9},       // a line break in the last quarter ends the page
		{9, 9, "line two\n", 18},       // exactly one line
		{27, 100, "e\n", len(text)},    // the tail
		{len(text), 10, "", len(text)}, // nothing left
		{0, 4, "line", 4},              // no line break at all: cut at n
	} {
		got, next := page(text, tc.offset, tc.n)
		if got != tc.want || next != tc.next {
			t.Errorf("page(%d, %d) = %q, %d; want %q, %d", tc.offset, tc.n, got, next, tc.want, tc.next)
		}
	}
	// Runes are never split, and a rune wider than the page is taken whole.
	if got, next := page("héllo", 0, 2); got != "h" || next != 1 {
		t.Errorf("page(héllo, 0, 2) = %q, %d", got, next)
	}
	if got, next := page("😀x", 0, 2); got != "😀" || next != 4 {
		t.Errorf("page(😀x, 0, 2) = %q, %d", got, next)
	}
}
