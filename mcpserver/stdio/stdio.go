package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// maxLine bounds one JSON-RPC message on stdin. The largest a client
// sends is an add with its content (8 MB of text, up to six times that
// escaped); a longer line is answered with an error and dropped, never
// held whole in memory.
const maxLine = 64 << 20

// Listen runs mcp-go's stdio server on in and out behind a line
// filter. Well-formed messages reach mcp-go unchanged; the filter answers
// the rest itself, with a JSON-RPC error that carries the message's id
// when it can be read and null when it cannot, and goes on to the next
// line:
//
//   - a line that is not JSON (a NUL byte, nesting deeper than encoding/json
//     reads, a truncated object): parse error -32700;
//   - a batch (a JSON array): MCP 2025-06-18 and later, which mcp-go
//     negotiates by default, have no JSON-RPC batching, and mcp-go cannot
//     answer one, so each request in it gets invalid request -32600 saying
//     so, in one array as JSON-RPC answers a batch;
//   - JSON that is not a request object (a number, a string), or an id that
//     is neither a string nor a number: invalid request -32600;
//   - an object mcp-go cannot read (a method or jsonrpc member that is no
//     string) or whose id it would not give back as sent (a number a
//     float64 does not hold, such as 1e400 or 2^53+1): invalid request
//     -32600. mcp-go would answer the first with a null id and the second
//     with another number.
//   - a line over maxLine: invalid request -32600, the rest of it skipped.
//
// An id that is a string or a number is echoed as it was written.
//
// Blank lines are skipped. Both the filter and mcp-go write whole lines to
// out under one lock, so their replies never interleave.
func Listen(ctx context.Context, ss *server.StdioServer, in io.Reader, out io.Writer) error {
	w := &lineWriter{w: out}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(filterLines(in, pw, w, maxLine))
	}()
	err := ss.Listen(ctx, pr, w)
	pr.Close() // a filter still writing stops
	return err
}

// lineWriter serialises writes; each Write is one whole message line.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// filterLines copies the well-formed messages of in to pass, one per
// line, and answers the others on reply; a line over limit bytes is
// answered and dropped. It returns nil at the end of in.
func filterLines(in io.Reader, pass io.Writer, reply io.Writer, limit int) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, over, err := readLine(r, limit)
		if len(bytes.TrimSpace(line)) > 0 {
			var ans []byte
			if over {
				ans = errorLine(recoverID(line), mcp.INVALID_REQUEST, fmt.Sprintf("message is over the %s limit for one line; it was dropped", size(limit)))
			} else {
				ans = check(line)
			}
			var werr error
			if ans != nil {
				_, werr = reply.Write(ans)
			} else {
				_, werr = pass.Write(append(line, '\n'))
			}
			if werr != nil {
				return werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// size renders a byte count in MiB when it is a whole number of them.
func size(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readLine reads one line without its end of line, at most limit bytes
// of it (its end of line counted); over says it was longer (the rest is
// read and dropped).
func readLine(r *bufio.Reader, limit int) (line []byte, over bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		if !over {
			if len(line)+len(frag) > limit {
				over = true
				line = append(line, frag[:limit-len(line)]...)
			} else {
				line = append(line, frag...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimRight(line, "\r\n")
		return line, over, err
	}
}

// batchNote is what each request of a batch is told.
const batchNote = "JSON-RPC batches are not supported (MCP 2025-06-18 and later have none): send each request on its own line"

// check returns the error reply for a message mcp-go should not see, or
// nil to pass it on.
func check(line []byte) []byte {
	if err := validJSON(line); err != nil {
		return errorLine(recoverID(line), mcp.PARSE_ERROR, "parse error: "+err.Error())
	}
	switch first(line) {
	case '{':
	case '[':
		return batchReply(line)
	default:
		return errorLine(nil, mcp.INVALID_REQUEST, "invalid request: want a JSON-RPC request object")
	}
	// The members mcp-go reads first, matched as it matches them
	// (encoding/json: any case, the last of duplicates).
	var m struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		Method  json.RawMessage `json:"method"`
		ID      json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(line, &m) // valid JSON, an object
	id := m.ID
	switch {
	case id == nil:
	case !validID(id): // null too: MCP requests have a string or integer id
		return errorLine(nil, mcp.INVALID_REQUEST, "invalid request: id must be a string or a number")
	case id[0] != '"' && !floatExact(string(id)):
		return errorLine(id, mcp.INVALID_REQUEST, "invalid request: a numeric id must be one a float64 holds exactly (the MCP library reads ids as float64); want a string or an integer within ±2^53")
	}
	if m.Method != nil && first(m.Method) != '"' {
		return errorLine(id, mcp.INVALID_REQUEST, "invalid request: method must be a string")
	}
	if m.JSONRPC != nil && first(m.JSONRPC) != '"' {
		return errorLine(id, mcp.INVALID_REQUEST, `invalid request: jsonrpc must be "2.0"`)
	}
	// Whatever else mcp-go could not read, it would answer with a null id.
	var base struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		ID      any    `json:"id"`
		Result  any    `json:"result"`
	}
	if err := json.Unmarshal(line, &base); err != nil {
		return errorLine(id, mcp.INVALID_REQUEST, "invalid request: "+err.Error())
	}
	return nil
}

// floatExact says whether the JSON number num comes back as the same
// number once read into a float64 and written out again, as mcp-go does
// with a numeric id: 1, -7, 0.5 and 1e2 do; 1e400 (out of range), 1e-400
// (read as 0) and 9007199254740993 (read as ...992) do not.
func floatExact(num string) bool {
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return false
	}
	a, ok := decimal(num)
	b, _ := decimal(strconv.FormatFloat(f, 'e', -1, 64))
	return ok && a == b
}

// decimal writes the JSON number num as sign, significant digits and
// exponent, so that two spellings of one number compare equal ("1e2",
// "100" and "100.0" all give "1e2"; every zero gives "0"). ok is false
// when the exponent does not fit an int.
func decimal(num string) (norm string, ok bool) {
	mant, exp, hasExp := strings.Cut(strings.ToLower(num), "e")
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	whole, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return "0", true
	}
	e := 0
	if hasExp {
		var err error
		if e, err = strconv.Atoi(exp); err != nil {
			return "", false
		}
	}
	trimmed := strings.TrimRight(digits, "0")
	e += len(digits) - len(trimmed) - len(frac)
	sign := ""
	if neg {
		sign = "-"
	}
	return fmt.Sprintf("%s%se%d", sign, trimmed, e), true
}

// validJSON is json.Valid with the reason when it is not.
func validJSON(b []byte) error {
	if json.Valid(b) {
		return nil
	}
	var v json.RawMessage
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	return errors.New("invalid JSON")
}

// batchReply answers a batch: an error for each request in it, carrying
// its id, and one for each element that is no request object; a batch of
// notifications alone (or none) gets a single error, so that the client
// hears why nothing happened.
func batchReply(line []byte) []byte {
	var elems []json.RawMessage
	_ = json.Unmarshal(line, &elems) // valid JSON, an array
	var out [][]byte
	for _, el := range elems {
		var m map[string]json.RawMessage
		if first(el) != '{' || json.Unmarshal(el, &m) != nil {
			out = append(out, errorJSON(nil, mcp.INVALID_REQUEST, batchNote))
			continue
		}
		id, ok := m["id"]
		switch {
		case !ok:
			continue // a notification gets no reply
		case validID(id):
			out = append(out, errorJSON(json.RawMessage(id), mcp.INVALID_REQUEST, batchNote))
		default:
			out = append(out, errorJSON(nil, mcp.INVALID_REQUEST, batchNote))
		}
	}
	if len(out) == 0 {
		return errorLine(nil, mcp.INVALID_REQUEST, batchNote)
	}
	return append(append([]byte{'['}, bytes.Join(out, []byte{','})...), ']', '\n')
}

// first is the first byte of b that is not JSON white space, or 0.
func first(b []byte) byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// validID says whether raw, a JSON value, is an id JSON-RPC allows: a
// string or a number (null is for replies to unreadable requests).
func validID(raw json.RawMessage) bool {
	switch c := first(raw); {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}

// recoverID reads the id of a message that is not valid JSON as far as
// it is readable: the top-level "id" member, when it comes before the
// damage. A NUL byte does not hide it. It returns nil when there is none.
func recoverID(line []byte) json.RawMessage {
	if id := scanID(line); id != nil {
		return id
	}
	if bytes.IndexByte(line, 0) >= 0 {
		return scanID(bytes.ReplaceAll(line, []byte{0}, nil))
	}
	return nil
}

// scanID reads the top-level members of an object token by token until
// it finds a string or number "id", and returns it as written.
func scanID(line []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		if k == "id" {
			start := dec.InputOffset() // before the colon
			v, err := dec.Token()
			if err != nil {
				return nil
			}
			switch v.(type) {
			case string, json.Number:
				return bytes.TrimLeft(line[start:dec.InputOffset()], " \t\r\n:")
			}
			return nil
		}
		if skipValue(dec) != nil {
			return nil
		}
	}
	return nil
}

// skipValue reads one value, however nested, from dec.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// errorLine is a JSON-RPC error reply as one line; id nil means null.
func errorLine(id json.RawMessage, code int, msg string) []byte {
	return append(errorJSON(id, code, msg), '\n')
}

type rpcErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// errorJSON is a JSON-RPC error reply; id nil means null. The id is
// written byte for byte as given (json.Marshal would escape < > & in a
// string id), so it must be one JSON string or number.
func errorJSON(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(rpcErrorBody{Code: code, Message: msg})
	b := make([]byte, 0, len(id)+len(body)+40)
	b = append(b, `{"jsonrpc":"`+mcp.JSONRPC_VERSION+`","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":`...)
	b = append(b, body...)
	return append(b, '}')
}
