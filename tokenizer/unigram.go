package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// unkPenalty is how much less than the least likely piece an unknown
// character scores (SentencePiece's kUnkPenalty).
const unkPenalty = 10.0

// unigram is the Unigram language model of SentencePiece: a text is cut
// into the sequence of vocabulary pieces whose log-probabilities sum
// highest (Viterbi over a lattice of every piece matching at every
// character). A character no piece starts with is the unknown token, at
// unkScore; unknown characters in a row fuse into one token; with
// byteFallback, an unknown token becomes the <0xNN> pieces of its bytes.
type unigram struct {
	trie     pieceTrie
	scores   []float64 // by id
	ids      map[string]int32
	unk      int32
	unkScore float64
	// bytes holds the id of each <0xNN> piece, -1 where missing; used only
	// with byteFallback.
	bytes        [256]int32
	byteFallback bool
}

// vocabEntry is one [piece, score] pair of a Unigram vocab.
type vocabEntry struct {
	piece string
	score float64
}

// parseVocab reads a Unigram vocab, [["piece", score], ...]. It scans the
// list itself, since a vocab has a quarter of a million entries (XLM-R)
// and encoding/json would spend most of a load on them; a piece with
// escapes goes through encoding/json.
//
// The pieces share one copy of data, or data itself when owned (see
// scanner.owned).
func parseVocab(data []byte, owned bool) ([]vocabEntry, error) {
	s := scanner{data: data, owned: owned}
	p := vocabParser{data: data, text: s.text(0)}
	var out []vocabEntry
	p.expect('[')
	if p.peek() == ']' {
		p.pos++
		return out, p.end()
	}
	for p.err == nil {
		p.expect('[')
		piece := p.str()
		p.expect(',')
		score := p.num()
		p.expect(']')
		if p.err != nil {
			break
		}
		out = append(out, vocabEntry{piece, score})
		if p.peek() == ']' {
			p.pos++
			return out, p.end()
		}
		p.expect(',')
	}
	return nil, p.err
}

type vocabParser struct {
	data []byte
	text string // data as a string
	pos  int
	err  error
}

func (p *vocabParser) fail(what string) {
	if p.err == nil {
		p.err = fmt.Errorf("tokenizer: Unigram vocab: %s at byte %d, want [[piece, score], ...]", what, p.pos)
	}
}

// peek skips white space and returns the next byte, 0 at the end.
func (p *vocabParser) peek() byte {
	for p.pos < len(p.data) {
		switch c := p.data[p.pos]; c {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return c
		}
	}
	return 0
}

func (p *vocabParser) expect(c byte) {
	if p.err != nil {
		return
	}
	if p.peek() != c {
		p.fail(fmt.Sprintf("%q", p.data[p.pos:min(p.pos+1, len(p.data))]))
		return
	}
	p.pos++
}

func (p *vocabParser) end() error {
	if p.peek() != 0 {
		p.fail("trailing data")
	}
	return p.err
}

func (p *vocabParser) str() string {
	if p.err != nil || p.peek() != '"' {
		p.fail("no piece string")
		return ""
	}
	start := p.pos
	escaped := false
	for p.pos++; p.pos < len(p.data); p.pos++ {
		switch c := p.data[p.pos]; {
		case c == '\\':
			escaped = true
			p.pos++
		case c == '"':
			p.pos++
			raw := p.data[start:p.pos]
			if !escaped && utf8.Valid(raw) {
				return p.text[start+1 : p.pos-1]
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				p.fail(err.Error())
			}
			return s
		case c < 0x20:
			p.fail("control character in a piece")
			return ""
		}
	}
	p.fail("unterminated piece")
	return ""
}

func (p *vocabParser) num() float64 {
	if p.err != nil {
		return 0
	}
	p.peek()
	start := p.pos
	for p.pos < len(p.data) && strings.IndexByte("+-.0123456789eE", p.data[p.pos]) >= 0 {
		p.pos++
	}
	f, err := strconv.ParseFloat(string(p.data[start:p.pos]), 64)
	if err != nil {
		p.fail("bad score")
	}
	return f
}

// newUnigram builds the model over vocab, whose index is the token id.
// Every piece, special ones included, is in the lattice, as in the
// reference; a piece listed twice takes its last id.
func newUnigram(vocab []vocabEntry, unk int, byteFallback bool) (*unigram, error) {
	if len(vocab) == 0 {
		return nil, errors.New("tokenizer: empty Unigram vocab")
	}
	if unk < 0 || unk >= len(vocab) {
		return nil, fmt.Errorf("tokenizer: Unigram unk_id %d out of range, want 0..%d", unk, len(vocab)-1)
	}
	if len(vocab) >= math.MaxInt32 {
		return nil, fmt.Errorf("tokenizer: Unigram vocab of %d pieces is too large", len(vocab))
	}
	u := &unigram{
		scores:       make([]float64, len(vocab)),
		ids:          make(map[string]int32, len(vocab)),
		unk:          int32(unk),
		byteFallback: byteFallback,
	}
	minScore := math.Inf(1)
	for id, e := range vocab {
		if math.IsNaN(e.score) {
			return nil, fmt.Errorf("tokenizer: Unigram piece %q has score NaN", e.piece)
		}
		u.scores[id] = e.score
		u.ids[e.piece] = int32(id)
		minScore = min(minScore, e.score)
	}
	u.unkScore = minScore - unkPenalty
	for b := range u.bytes {
		u.bytes[b] = -1
		if id, ok := u.ids[fmt.Sprintf("<0x%02X>", b)]; ok {
			u.bytes[b] = id
		}
	}
	u.trie = newPieceTrie(u.ids)
	return u, nil
}

// latticeNode is the best path found so far that ends at one byte
// position: its score, where its last token starts (-1: none yet) and
// that token's id.
type latticeNode struct {
	score float64
	start int32
	id    int32
}

// appendPiece appends the ids of w, one pre-tokenized piece, to ids.
func (u *unigram) appendPiece(sc *scratch, ids []int32, w []byte) []int32 {
	n := len(w)
	if n == 0 {
		return ids
	}
	if cap(sc.lattice) < n+1 {
		sc.lattice = make([]latticeNode, n+1)
	}
	lat := sc.lattice[:n+1]
	for i := range lat {
		lat[i] = latticeNode{start: -1}
	}
	lat[0].start = 0
	t := &u.trie
	for i := 0; i < n; {
		base := lat[i].score
		size := min(runeLen(w[i]), n-i)
		single := false
		node := int32(0)
		for k := i; k < n; k++ {
			if node = t.child(node, w[k]); node < 0 {
				break
			}
			id := t.units[node].id
			if id < 0 {
				continue
			}
			end := k + 1
			if s := base + u.scores[id]; lat[end].start < 0 || s > lat[end].score {
				lat[end] = latticeNode{score: s, start: int32(i), id: id}
			}
			if end-i == size {
				single = true
			}
		}
		if !single {
			end := i + size
			if s := base + u.unkScore; lat[end].start < 0 || s > lat[end].score {
				lat[end] = latticeNode{score: s, start: int32(i), id: u.unk}
			}
		}
		i += size
	}

	// Backtrack, then emit left to right, fusing unknown runs.
	path := sc.path[:0]
	for end := int32(n); end > 0; end = lat[end].start {
		path = append(path, end)
	}
	sc.path = path
	start := int32(0)
	for k := len(path) - 1; k >= 0; k-- {
		end := path[k]
		id := lat[end].id
		if id != u.unk {
			ids = append(ids, id)
			start = end
			continue
		}
		for k > 0 && lat[path[k-1]].id == u.unk {
			k--
			end = path[k]
		}
		ids = u.appendUnknown(ids, w[start:end])
		start = end
	}
	return ids
}

// runeLen is the length of the UTF-8 sequence that lead byte c starts, in
// valid UTF-8 (which a damaged charsmap could break: callers bound it).
func runeLen(c byte) int {
	switch {
	case c < 0xC0:
		return 1
	case c < 0xE0:
		return 2
	case c < 0xF0:
		return 3
	}
	return 4
}

// appendUnknown appends the id of a run of unknown characters: the piece
// it spells if there is one, its <0xNN> byte pieces with byte fallback
// when all exist, or the unknown token.
func (u *unigram) appendUnknown(ids []int32, s []byte) []int32 {
	if id, ok := u.ids[string(s)]; ok {
		return append(ids, id)
	}
	if u.byteFallback {
		ok := true
		for _, b := range s {
			ok = ok && u.bytes[b] >= 0
		}
		if ok {
			for _, b := range s {
				ids = append(ids, u.bytes[b])
			}
			return ids
		}
	}
	return append(ids, u.unk)
}

// pieceTrie is a byte trie over the vocabulary pieces, laid out as a
// double array: the child of state s under byte c is state base[s]+c when
// check of that state is s. A step costs two loads, whatever the number of
// children; state 0 is the root.
type pieceTrie struct {
	units []trieUnit
}

// trieUnit is one state of the double array.
type trieUnit struct {
	base  int32
	check int32 // parent state; -1: free slot
	id    int32 // the piece ending at the state, -1 if none
}

// Building the double array: a node's children go at the first base, from
// the last trieWindow slots on, where all their slots are free; after
// trieTries candidates fail (a node with many children, in a crowded
// stretch) they go past the end instead. Both bounds keep building linear
// in the number of states, at the cost of a few holes.
const (
	trieWindow = 1 << 16
	trieTries  = 64
)

func newPieceTrie(ids map[string]int32) pieceTrie {
	keys := make([]string, 0, len(ids))
	for k := range ids {
		if k != "" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var t pieceTrie
	var used []uint64 // bit i: slot i is taken
	size := 1
	for _, k := range keys {
		size += len(k)
	}
	t.units = make([]trieUnit, 0, size+size/4+256)
	grow := func(n int) {
		for len(t.units) < n {
			t.units = append(t.units, trieUnit{check: -1, id: -1})
		}
		for len(used)*64 < n {
			used = append(used, 0)
		}
	}
	take := func(i int) { used[i>>6] |= 1 << (i & 63) }
	free := func(i int) bool { return i >= len(t.units) || used[i>>6]&(1<<(i&63)) == 0 }
	// nextFree returns the first free slot at or after i.
	nextFree := func(i int) int {
		for w := i >> 6; w < len(used); w++ {
			bitsFree := ^used[w]
			if w == i>>6 {
				bitsFree &= ^uint64(0) << (i & 63)
			}
			if bitsFree != 0 {
				return w<<6 + bits.TrailingZeros64(bitsFree)
			}
		}
		return max(i, len(used)*64)
	}
	grow(1)
	take(0)
	t.units[0].check = -2 // the root: occupied, nobody's child
	// Depth first; each stacked state carries the keys below it,
	// keys[lo:hi], which share its depth bytes of prefix.
	type item struct {
		state  int32
		lo, hi int
		depth  int
	}
	var labels []byte
	var spans [][2]int
	cursor := 1
	stack := []item{{state: 0, lo: 0, hi: len(keys)}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		lo := it.lo
		if lo < it.hi && len(keys[lo]) == it.depth {
			t.units[it.state].id = ids[keys[lo]]
			lo++
		}
		labels, spans = labels[:0], spans[:0]
		for lo < it.hi {
			c := keys[lo][it.depth]
			hi := lo + 1
			for hi < it.hi && keys[hi][it.depth] == c {
				hi++
			}
			labels = append(labels, c)
			spans = append(spans, [2]int{lo, hi})
			lo = hi
		}
		if len(labels) == 0 {
			continue
		}
		first := int(labels[0])
		b := max(len(t.units)-first, 1) // past the end: always room
		// Slots are only ever taken, so the first free one of the window
		// only moves forward.
		cursor = nextFree(max(cursor, len(t.units)-trieWindow))
		f := nextFree(max(cursor, first+1))
		for try := 0; try < trieTries && f < len(t.units); try++ {
			ok := true
			for _, c := range labels[1:] {
				if !free(f - first + int(c)) {
					ok = false
					break
				}
			}
			if ok {
				b = f - first
				break
			}
			f = nextFree(f + 1)
		}
		grow(b + int(labels[len(labels)-1]) + 1)
		t.units[it.state].base = int32(b)
		for i, c := range labels {
			st := b + int(c)
			take(st)
			t.units[st].check = it.state
			stack = append(stack, item{state: int32(st), lo: spans[i][0], hi: spans[i][1], depth: it.depth + 1})
		}
	}
	t.units = slices.Clone(t.units) // let go of the spare capacity
	return t
}

// child returns the child of state s under byte c, or -1.
func (t *pieceTrie) child(s int32, c byte) int32 {
	n := t.units[s].base + int32(c)
	if uint(n) < uint(len(t.units)) && t.units[n].check == s {
		return n
	}
	return -1
}
