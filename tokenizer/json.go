package tokenizer

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
	"unsafe"
)

// This file reads the large parts of a tokenizer.json without
// encoding/json, which spent most of a load (tens of milliseconds for a
// 700 KB BERT file) validating the whole document, skipping the vocab into
// a RawMessage and filling a map through reflection. scanner validates
// JSON as encoding/json does (same grammar, same nesting bound; invalid
// UTF-8 in strings is accepted, and decodes to U+FFFD) and cuts objects
// into their fields; the small parts (added_tokens, templates, decoders)
// still go through encoding/json. Keys match exactly, as in the reference
// (serde), not case-insensitively as encoding/json's struct fields do; a
// key given twice takes its last value.

// maxDepth bounds nesting, as encoding/json does.
const maxDepth = 10000

// jsonField is one member of an object: its decoded key and the raw text
// of its value.
type jsonField struct {
	key string
	val []byte
}

// scanner is a validating JSON scanner over data.
type scanner struct {
	data  []byte
	pos   int
	depth int
	err   error
	// owned says that data never changes, so that strings may share it.
	owned bool
	// checked says that data was checked before (a part of a document
	// read whole): string values are skipped without a second look.
	checked bool
}

func (s *scanner) fail(what string) {
	if s.err == nil {
		s.err = fmt.Errorf("invalid JSON: %s at byte %d", what, s.pos)
	}
}

// failAt reports an unexpected byte, or the end of the input.
func (s *scanner) failAt(want string) {
	if s.pos >= len(s.data) {
		s.fail("unexpected end of input, want " + want)
		return
	}
	s.fail(fmt.Sprintf("unexpected %q, want %s", s.data[s.pos], want))
}

// ws skips white space and returns the next byte, 0 at the end.
func (s *scanner) ws() byte {
	d, i := s.data, s.pos
	for i < len(d) && isSpace[d[i]] {
		i++
	}
	if s.pos = i; i < len(d) {
		return d[i]
	}
	return 0
}

// isSpace marks JSON's white space.
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// end checks that only white space follows.
func (s *scanner) end() {
	if s.ws(); s.err == nil && s.pos < len(s.data) {
		s.failAt("the end of the input")
	}
}

// value skips one value, checking it.
func (s *scanner) value() {
	if s.err != nil {
		return
	}
	switch c := s.ws(); {
	case c == '{':
		s.object(nil)
	case c == '[':
		s.array(nil)
	case c == '"' && s.checked:
		s.skipChecked()
	case c == '"':
		s.str()
	case c == '-' || '0' <= c && c <= '9':
		s.number()
	case c == 't':
		s.literal("true")
	case c == 'f':
		s.literal("false")
	case c == 'n':
		s.literal("null")
	default:
		s.failAt("a value")
	}
}

func (s *scanner) literal(lit string) {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(lit)) {
		s.failAt(lit)
		return
	}
	s.pos += len(lit)
}

// enter counts one more level of nesting.
func (s *scanner) enter() bool {
	if s.depth++; s.depth > maxDepth {
		s.fail(fmt.Sprintf("nesting deeper than %d", maxDepth))
		return false
	}
	return true
}

// object reads the object at s.pos, calling member, if not nil, with the
// raw key of each member (quotes included; plain as str says) when the
// scanner stands at its value, which member must read; a nil member skips
// the values.
func (s *scanner) object(member func(key []byte, plain bool)) {
	if !s.enter() {
		return
	}
	defer func() { s.depth-- }()
	s.pos++ // {
	if s.ws() == '}' {
		s.pos++
		return
	}
	for s.err == nil {
		if s.ws() != '"' {
			s.failAt("a string key")
			return
		}
		k := s.pos
		plain := s.str()
		key := s.data[k:s.pos]
		if s.ws() != ':' {
			s.failAt("':'")
			return
		}
		s.pos++
		s.ws()
		if member != nil {
			member(key, plain)
		} else {
			s.value()
		}
		if s.err != nil {
			return
		}
		switch s.ws() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return
		default:
			s.failAt("',' or '}'")
		}
	}
}

// array skips the array at s.pos, calling item, if not nil, with the raw
// text of each element.
func (s *scanner) array(item func(val []byte)) {
	if !s.enter() {
		return
	}
	defer func() { s.depth-- }()
	s.pos++ // [
	if s.ws() == ']' {
		s.pos++
		return
	}
	for s.err == nil {
		s.ws()
		v := s.pos
		s.value()
		if s.err != nil {
			return
		}
		if item != nil {
			item(s.data[v:s.pos])
		}
		switch s.ws() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return
		default:
			s.failAt("',' or ']'")
		}
	}
}

// key decodes a raw key that str called plain or not.
func (s *scanner) key(raw []byte, plain bool) string {
	if plain {
		return string(raw[1 : len(raw)-1])
	}
	k, err := jsonString(raw)
	if err != nil {
		s.fail(err.Error())
	}
	return k
}

// fields reads the object at s.pos into its members.
func (s *scanner) fields() []jsonField {
	var fields []jsonField
	s.object(func(key []byte, plain bool) {
		k := s.key(key, plain)
		v := s.pos
		s.value()
		fields = append(fields, jsonField{k, s.data[v:s.pos]})
	})
	return fields
}

// str skips the string at s.pos. plain says that its text, between the
// quotes, is its value: no escapes, valid UTF-8.
func (s *scanner) str() (plain bool) {
	start := s.pos
	s.pos++ // "
	plain, high := true, false
	for s.pos < len(s.data) {
		d := s.data
		i := plainRun(d, s.pos)
		if s.pos = i; i == len(d) {
			break
		}
		c := d[i]
		switch {
		case c == '"':
			if high && plain {
				plain = utf8.Valid(s.data[start+1 : s.pos])
			}
			s.pos++
			return plain
		case c == '\\':
			plain = false
			s.pos++
			if s.pos >= len(s.data) {
				break
			}
			switch s.data[s.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos++
			case 'u':
				s.pos++
				for range 4 {
					if s.pos >= len(s.data) || !isHex(s.data[s.pos]) {
						s.failAt("a hex digit in \\u escape")
						return false
					}
					s.pos++
				}
			default:
				s.failAt("an escape character")
				return false
			}
		case c < 0x20:
			s.fail("control character in string")
			return false
		default:
			high = high || c >= utf8.RuneSelf
			s.pos++
		}
	}
	s.fail("unterminated string")
	return false
}

// skipChecked skips the checked string at s.pos: its end is the first
// quote after an even number of backslashes.
func (s *scanner) skipChecked() {
	d, i := s.data, s.pos+1
	for {
		j := bytes.IndexByte(d[i:], '"')
		if j < 0 {
			s.pos = len(d)
			s.fail("unterminated string")
			return
		}
		i += j
		k := i
		for k > s.pos+1 && d[k-1] == '\\' {
			k--
		}
		if (i-k)%2 == 0 {
			s.pos = i + 1
			return
		}
		i++
	}
}

// plainRun returns the end of the run of bytes from i on that are neither
// strSpecial: eight at a time (a base64 precompiled_charsmap runs for
// hundreds of KB), then one at a time.
func plainRun(d []byte, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(d); i += 8 {
		x := binary.LittleEndian.Uint64(d[i:])
		q, b := x^(lo*'"'), x^(lo*'\\')
		// A byte of q or b is zero, or a byte of x is below 0x20 or
		// above 0x7F (the exact tests of "Bit Twiddling Hacks").
		if ((q-lo)&^q|(b-lo)&^b|(x-lo*0x20)&^x|x)&hi != 0 {
			break
		}
	}
	for i < len(d) && !strSpecial[d[i]] {
		i++
	}
	return i
}

// strSpecial marks the bytes that end a string's plain run: the quote,
// the backslash, control characters and non-ASCII bytes.
var strSpecial = func() (t [256]bool) {
	for c := range t {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number skips the number at s.pos: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
// integer says that it has neither fraction nor exponent.
func (s *scanner) number() (integer bool) {
	d, i := s.data, s.pos
	digits := func() bool {
		j := i
		for i < len(d) && isDigit(d[i]) {
			i++
		}
		return i > j
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case !digits():
		s.pos = i
		s.failAt("a digit")
		return false
	}
	integer = true
	if i < len(d) && d[i] == '.' {
		integer = false
		if i++; !digits() {
			s.pos = i
			s.failAt("a digit after '.'")
			return false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		integer = false
		if i++; i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			s.pos = i
			s.failAt("a digit in the exponent")
			return false
		}
	}
	s.pos = i
	return integer
}

// jsonObject checks that data is one JSON value and returns its fields when
// it is an object; null has none. Anything else is an error. checked says
// that data is part of a document already checked whole (see
// scanner.checked).
func jsonObject(data []byte, checked bool) ([]jsonField, error) {
	s := scanner{data: data, checked: checked}
	var fields []jsonField
	switch s.ws() {
	case '{':
		fields = s.fields()
	case 'n':
		s.literal("null")
	default:
		s.value()
		if s.err == nil {
			s.pos = 0
			s.failAt("an object")
		}
	}
	s.end()
	if s.err != nil {
		return nil, s.err
	}
	return fields, nil
}

// jsonArray returns the elements of the array data, a part of a document
// already checked whole; null has none.
func jsonArray(data []byte) ([][]byte, error) {
	s := scanner{data: data, checked: true}
	var items [][]byte
	switch s.ws() {
	case '[':
		s.array(func(val []byte) { items = append(items, val) })
	case 'n':
		s.literal("null")
	default:
		s.failAt("an array")
	}
	s.end()
	return items, s.err
}

// field returns the value of the last member named key, nil if none.
func field(fields []jsonField, key string) []byte {
	for i := len(fields) - 1; i >= 0; i-- {
		if fields[i].key == key {
			return fields[i].val
		}
	}
	return nil
}

// decodeFields decodes the members named in into into their targets with
// encoding/json, in document order.
func decodeFields(fields []jsonField, into map[string]any) error {
	for _, f := range fields {
		if v, ok := into[f.key]; ok {
			if err := json.Unmarshal(f.val, v); err != nil {
				return fmt.Errorf("field %q: %w", f.key, err)
			}
		}
	}
	return nil
}

// stringField decodes the string member key, "" when it is missing or
// null.
func stringField(fields []jsonField, key string) (string, error) {
	raw := field(fields, key)
	if isNull(raw) {
		return "", nil
	}
	v, err := jsonString(raw)
	if err != nil {
		return "", fmt.Errorf("field %q: %w", key, err)
	}
	return v, nil
}

// jsonString decodes the raw JSON string raw, quotes included.
func jsonString(raw []byte) (string, error) {
	if len(raw) >= 2 && raw[0] == '"' {
		s := scanner{data: raw}
		if s.str() && s.pos == len(raw) {
			return string(raw[1 : len(raw)-1]), nil
		}
	}
	var v string
	err := json.Unmarshal(raw, &v)
	return v, err
}

// text returns data from start on as a string: data itself when owned,
// else a copy.
func (s *scanner) text(start int) string {
	if rest := s.data[start:]; s.owned && len(rest) > 0 {
		return unsafe.String(&rest[0], len(rest))
	}
	return string(s.data[start:])
}

// wpVocab is a WordPiece vocab as read.
type wpVocab struct {
	table  *pieceTable // token to id
	tokens []string    // by id; "" where no token has the id
	set    []uint64    // bit id: tokens[id] is a token
	// exact says that tokens holds every token: none is listed twice and
	// no two share an id. Otherwise ids holds the vocab.
	exact bool
	ids   map[string]int32
}

// each calls fn with every entry of the vocab.
func (v *wpVocab) each(fn func(tok string, id int32)) {
	if !v.exact {
		for tok, id := range v.ids {
			fn(tok, id)
		}
		return
	}
	for id, tok := range v.tokens {
		if v.set[id>>6]&(1<<(id&63)) != 0 {
			fn(tok, int32(id))
		}
	}
}

// eachIndex calls fn with every token of the vocab and its index in the
// table's keys.
func (v *wpVocab) eachIndex(fn func(i int, tok string)) {
	if v.exact {
		v.each(func(tok string, id int32) { fn(int(id), tok) })
		return
	}
	for i, tok := range v.table.keys {
		fn(i, tok)
	}
}

// wordPieceVocab reads the WordPiece vocab at s.pos, {"token": id, ...}.
// When a token is listed twice its last id counts, and the tokens by id
// are rebuilt from a map (the id of a repeated token, or one shared by two
// tokens, then names either). The tokens share one copy of the rest of
// the input, or the input itself (see scanner.owned).
func (s *scanner) wordPieceVocab() *wpVocab {
	if !s.enter() {
		return nil
	}
	defer func() { s.depth-- }()
	start, text := s.pos, ""
	// Each entry but the last ends at a comma, so this bounds the count.
	n := min(bytes.Count(s.data[start:], []byte{','})+1, maxVocab)
	v := &wpVocab{tokens: make([]string, 0, n), set: make([]uint64, 0, (n+63)/64), exact: true}
	v.table = newPieceTable(n, v.tokens, 0, nil)
	s.pos++ // {
	if s.ws() == '}' {
		s.pos++
		return v
	}
	for s.err == nil {
		if s.ws() != '"' {
			s.failAt("a token")
			break
		}
		k := s.pos
		var tok string
		if s.str() {
			if text == "" {
				text = s.text(start)
			}
			tok = text[k+1-start : s.pos-1-start]
		} else {
			tok = s.key(s.data[k:s.pos], false)
		}
		if s.ws() != ':' {
			s.failAt("':'")
			break
		}
		s.pos++
		if c := s.ws(); c != '-' && !isDigit(c) {
			s.failAt("a token id")
			break
		}
		num := s.pos
		integer := s.number()
		id, ok := parseID(s.data[num:s.pos])
		switch {
		case s.err != nil:
		case !integer || !ok:
			s.fail(fmt.Sprintf("token %q has id %s, want an integer that fits 32 bits", tok, s.data[num:s.pos]))
		case id < 0 || id >= maxVocab:
			s.err = fmt.Errorf("token %q has id %d, want 0..%d", tok, id, maxVocab-1)
		}
		if s.err != nil {
			break
		}
		v.add(tok, id)
		switch s.ws() {
		case ',':
			s.pos++
			continue
		case '}':
			s.pos++
		default:
			s.failAt("',' or '}'")
		}
		break
	}
	if s.err != nil {
		return nil
	}
	if !v.exact {
		v.fromMap()
	}
	return v
}

// add records one entry of the vocab: in tokens and the table while they
// stay exact, in ids after.
func (v *wpVocab) add(tok string, id int32) {
	if v.exact {
		if int(id) >= len(v.tokens) {
			v.tokens = slices.Grow(v.tokens, int(id)+1-len(v.tokens))[:id+1]
			v.table.keys = v.tokens
			for len(v.set)*64 <= int(id) {
				v.set = append(v.set, 0)
			}
		}
		if v.set[id>>6]&(1<<(id&63)) == 0 {
			v.tokens[id] = tok
			if v.table.add(tok, int(id)) < 0 {
				v.set[id>>6] |= 1 << (id & 63)
				return
			}
			v.tokens[id] = ""
		}
		// A token listed twice, or an id taken: on with a map.
		v.ids = make(map[string]int32, len(v.tokens))
		v.each(func(tok string, id int32) { v.ids[tok] = id })
		v.exact = false
	}
	v.ids[tok] = id
}

// fromMap rebuilds tokens and the table from ids.
func (v *wpVocab) fromMap() {
	size := 0
	keys, ids := make([]string, 0, len(v.ids)), make([]int32, 0, len(v.ids))
	for tok, id := range v.ids {
		size = max(size, int(id)+1)
		keys, ids = append(keys, tok), append(ids, id)
	}
	v.tokens = make([]string, size)
	for i, id := range ids {
		v.tokens[id] = keys[i]
	}
	v.table = newPieceTable(len(keys), keys, 0, ids)
	for i, k := range keys {
		v.table.add(k, i)
	}
}

// parseID reads a JSON number, already checked by the scanner, as an
// int32: false for a fraction, an exponent or a value out of range.
func parseID(val []byte) (int32, bool) {
	neg := len(val) > 0 && val[0] == '-'
	if neg {
		val = val[1:]
	}
	if len(val) == 0 || len(val) > 10 {
		return 0, false
	}
	var n int64
	for _, c := range val {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return 0, false
	}
	return int32(n), true
}
