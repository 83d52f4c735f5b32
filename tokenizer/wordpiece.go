package tokenizer

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// wordPiece is the WordPiece model: greedy longest-match-first over a
// vocabulary, continuation pieces carrying a prefix ("##").
type wordPiece struct {
	// start finds the pieces that may begin a word, cont the pieces that
	// may continue one, keyed without the continuation prefix, so that a
	// lookup needs no concatenation.
	start, cont *pieceTable
	// startMax and contMax are the longest keys in bytes: no longer
	// candidate can match, so the search starts there.
	startMax, contMax int
	unk               int32
	maxChars          int
}

// newWordPiece builds the model over vocab, whose table it keeps.
func newWordPiece(vocab *wpVocab, unk, prefix string, maxChars int) (*wordPiece, error) {
	unkID, ok := vocab.table.findString(unk)
	if !ok {
		return nil, fmt.Errorf("tokenizer: unk_token %q not in the vocabulary", unk)
	}
	if maxChars <= 0 {
		maxChars = 100
	}
	n := 0
	vocab.each(func(tok string, _ int32) {
		if strings.HasPrefix(tok, prefix) {
			n++
		}
	})
	wp := &wordPiece{start: vocab.table, unk: unkID, maxChars: maxChars}
	wp.cont = newPieceTable(n, vocab.table.keys, len(prefix), vocab.table.ids)
	vocab.eachIndex(func(i int, tok string) {
		wp.startMax = max(wp.startMax, len(tok))
		if rest, ok := strings.CutPrefix(tok, prefix); ok {
			wp.cont.add(rest, i)
			wp.contMax = max(wp.contMax, len(rest))
		}
	})
	return wp, nil
}

// appendWordPiece appends the ids of one pre-tokenized word w of chars
// characters: its greedy longest-match pieces, or the unknown token when
// the word is too long or some part of it matches nothing.
func (t *Tokenizer) appendWordPiece(ids []int32, w []byte, chars int) []int32 {
	wp := t.wp
	if chars > wp.maxChars {
		return append(ids, wp.unk)
	}
	first := len(ids)
	for start := 0; start < len(w); {
		vocab, limit := wp.start, wp.startMax
		if start > 0 {
			vocab, limit = wp.cont, wp.contMax
		}
		end := len(w)
		if end-start > limit {
			end = start + limit
			for end > start && !utf8.RuneStart(w[end]) {
				end--
			}
		}
		found := false
		for end > start {
			if id, ok := vocab.find(w[start:end]); ok {
				ids = append(ids, id)
				found = true
				break
			}
			end--
			for end > start && !utf8.RuneStart(w[end]) {
				end--
			}
		}
		if !found {
			return append(ids[:first], wp.unk)
		}
		start = end
	}
	return ids
}
