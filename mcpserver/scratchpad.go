package mcpserver

import (
	"container/list"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// scratchpadBytes bounds the text all scratchpad entries hold together;
// the least recently used are dropped to stay under it.
const scratchpadBytes = 64 << 20

// scratchpad keeps the full text of tool outputs too long for one reply,
// least recently used first out. It is safe for concurrent use.
type scratchpad struct {
	mu       sync.Mutex
	max      int // entries
	maxBytes int
	bytes    int
	next     int
	order    *list.List // of *padEntry, most recently used at the front
	byID     map[string]*list.Element
}

type padEntry struct {
	ID      string    `json:"id"`
	Tool    string    `json:"tool"`
	Bytes   int       `json:"bytes"`
	Created time.Time `json:"created"`
	Preview string    `json:"preview"` // the first line, cut to 80 bytes
	text    string
}

func newScratchpad(max, maxBytes int) *scratchpad {
	return &scratchpad{max: max, maxBytes: maxBytes, order: list.New(), byID: map[string]*list.Element{}}
}

// put stores text and returns its id.
func (p *scratchpad) put(tool, text string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	preview, _, _ := strings.Cut(text, "\n")
	if len(preview) > 80 {
		preview = cutRunes(preview, 80) + "…"
	}
	e := &padEntry{ID: fmt.Sprintf("sp-%d", p.next), Tool: tool, Bytes: len(text), Created: time.Now().UTC(), Preview: preview, text: text}
	p.byID[e.ID] = p.order.PushFront(e)
	p.bytes += len(text)
	for p.order.Len() > 1 && (p.order.Len() > p.max || p.bytes > p.maxBytes) {
		old := p.order.Back()
		oe := old.Value.(*padEntry)
		p.order.Remove(old)
		delete(p.byID, oe.ID)
		p.bytes -= oe.Bytes
	}
	return e.ID
}

// get returns an entry's text and marks it used.
func (p *scratchpad) get(id string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	el, ok := p.byID[id]
	if !ok {
		return "", false
	}
	p.order.MoveToFront(el)
	return el.Value.(*padEntry).text, true
}

// list describes the entries, most recently used first.
func (p *scratchpad) list() []padEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := []padEntry{}
	for el := p.order.Front(); el != nil; el = el.Next() {
		e := *el.Value.(*padEntry)
		e.text = ""
		out = append(out, e)
	}
	return out
}

// cutRunes shortens s to at most n bytes without splitting a rune.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// page returns up to n bytes of text from offset, ended at a line break
// when one falls in the last quarter, and the offset after it.
func page(text string, offset, n int) (string, int) {
	if offset >= len(text) {
		return "", len(text)
	}
	rest := text[offset:]
	if len(rest) <= n {
		return rest, len(text)
	}
	cut := cutRunes(rest, n)
	if i := strings.LastIndexByte(cut, '\n'); i >= len(cut)*3/4 {
		cut = cut[:i+1]
	}
	if cut == "" { // a rune longer than n bytes: take it whole
		_, size := utf8.DecodeRuneInString(rest)
		cut = rest[:size]
	}
	return cut, offset + len(cut)
}
