package scratchpad

import (
	"container/list"
	"crypto/rand"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// MaxBytes bounds the text all scratchpad entries hold together;
// the least recently used are dropped to stay under it.
const MaxBytes = 64 << 20

// Pad keeps the full text of tool outputs too long for one reply,
// least recently used first out. It is safe for concurrent use.
type Pad struct {
	mu       sync.Mutex
	max      int // entries
	maxBytes int
	bytes    int
	next     int
	order    *list.List // of *Entry, most recently used at the front
	byID     map[string]*list.Element
}

// Entry describes one kept output.
type Entry struct {
	ID      string    `json:"id"`
	Tool    string    `json:"tool"`
	Bytes   int       `json:"bytes"`
	Created time.Time `json:"created"`
	Preview string    `json:"preview"` // the first line, cut to 80 bytes
	text    string
	owner   string
}

// New returns a pad keeping at most max entries of maxBytes in all.
func New(max, maxBytes int) *Pad {
	return &Pad{max: max, maxBytes: maxBytes, order: list.New(), byID: map[string]*list.Element{}}
}

// Put stores text for owner and returns its id. Only the same owner
// gets or lists it: a networked server's users each see their own
// (owner "" is the one user of a stdio server). An owner's ids are
// random, so they say nothing of the entries of others and cannot be
// guessed; the one user's are sp-1, sp-2, ...
func (p *Pad) Put(owner, tool, text string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	id := fmt.Sprintf("sp-%d", p.next)
	if owner != "" {
		id = "sp-" + rand.Text()[:16]
	}
	preview, _, _ := strings.Cut(text, "\n")
	if len(preview) > 80 {
		preview = cutRunes(preview, 80) + "…"
	}
	e := &Entry{ID: id, Tool: tool, Bytes: len(text), Created: time.Now().UTC(), Preview: preview, text: text, owner: owner}
	p.byID[e.ID] = p.order.PushFront(e)
	p.bytes += len(text)
	for p.order.Len() > 1 && (p.order.Len() > p.max || p.bytes > p.maxBytes) {
		old := p.order.Back()
		oe := old.Value.(*Entry)
		p.order.Remove(old)
		delete(p.byID, oe.ID)
		p.bytes -= oe.Bytes
	}
	return e.ID
}

// Get returns the text of owner's entry id and marks it used; another
// owner's is as one that does not exist.
func (p *Pad) Get(owner, id string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	el, ok := p.byID[id]
	if !ok || el.Value.(*Entry).owner != owner {
		return "", false
	}
	p.order.MoveToFront(el)
	return el.Value.(*Entry).text, true
}

// List describes owner's entries, most recently used first.
func (p *Pad) List(owner string) []Entry {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := []Entry{}
	for el := p.order.Front(); el != nil; el = el.Next() {
		e := *el.Value.(*Entry)
		if e.owner != owner {
			continue
		}
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

// Page returns up to n bytes of text from offset, ended at a line break
// when one falls in the last quarter, and the offset after it.
func Page(text string, offset, n int) (string, int) {
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
