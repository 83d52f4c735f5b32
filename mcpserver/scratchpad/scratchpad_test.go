package scratchpad

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScratchpadLRU(t *testing.T) {
	p := New(2, 100)
	a := p.Put("", "grep", strings.Repeat("a", 40))
	b := p.Put("", "search", strings.Repeat("b", 40))
	if _, ok := p.Get("", a); !ok { // a is now the most recently used
		t.Fatal("a is gone")
	}
	c := p.Put("", "grep", "c\nmore")
	if _, ok := p.Get("", b); ok {
		t.Error("b, the least recently used, was kept over the 2-entry limit")
	}
	var ids []string
	for _, e := range p.List("") {
		ids = append(ids, fmt.Sprintf("%s %s %d %q", e.ID, e.Tool, e.Bytes, e.Preview))
	}
	want := []string{c + ` grep 6 "c"`, a + ` grep 40 "` + strings.Repeat("a", 40) + `"`}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	// The byte limit drops old entries too, but never the newest.
	d := p.Put("", "grep", strings.Repeat("d", 150))
	if got := p.List(""); len(got) != 1 || got[0].ID != d {
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
		got, next := Page(text, tc.offset, tc.n)
		if got != tc.want || next != tc.next {
			t.Errorf("Page(%d, %d) = %q, %d; want %q, %d", tc.offset, tc.n, got, next, tc.want, tc.next)
		}
	}
	// Runes are never split, and a rune wider than the page is taken whole.
	if got, next := Page("héllo", 0, 2); got != "h" || next != 1 {
		t.Errorf("Page(héllo, 0, 2) = %q, %d", got, next)
	}
	if got, next := Page("😀x", 0, 2); got != "😀" || next != 4 {
		t.Errorf("Page(😀x, 0, 2) = %q, %d", got, next)
	}
}

func TestOwners(t *testing.T) {
	p := New(8, 1<<20)
	a := p.Put("user:alice", "grep", "alice's long output")
	b := p.Put("user:bob", "grep", "bob's")
	if _, ok := p.Get("user:bob", a); ok {
		t.Errorf("bob read alice's entry %s", a)
	}
	if _, ok := p.Get("", a); ok {
		t.Errorf("the unsigned user read alice's entry %s", a)
	}
	if text, ok := p.Get("user:alice", a); !ok || text != "alice's long output" {
		t.Errorf("alice's own entry: %q, %v", text, ok)
	}
	if got := p.List("user:bob"); len(got) != 1 || got[0].ID != b {
		t.Errorf("bob lists %+v, want only %s", got, b)
	}
	if a == b || !strings.HasPrefix(a, "sp-") || len(a) != len("sp-")+16 {
		t.Errorf("ids %q and %q: want distinct random sp- ids", a, b)
	}
}
