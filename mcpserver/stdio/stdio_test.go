package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/server"
)

// The line filter passes well-formed messages on unchanged and answers
// the rest with a JSON-RPC error carrying the id when it can be read
// (issue 20, 8e).
func TestFilterLines(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"a":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}}`
	tests := []struct {
		name  string
		in    string
		pass  string // what reaches mcp-go
		reply string // what the client is told
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r\n", `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n", ""},
		{"notification, no end of line", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n", ""},
		{"blank lines", "\n  \n\r\n", "", ""},
		{"NUL in a string", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"pi\x00ng\"}\n", "",
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32700,"message":"parse error: invalid character '\\x00' in string literal"}}` + "\n"},
		{"NUL before the id", "{\"jsonrpc\":\"2.\x000\",\"id\":\"a\",\"method\":\"ping\"}\n", "",
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32700,"message":"parse error: invalid character '\\x00' in string literal"}}` + "\n"},
		{"deep nesting", deep + "\n", "",
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32700,"message":"parse error: invalid character '[' exceeded max depth"}}` + "\n"},
		{"deep, id after it", `{"params":` + strings.Repeat("[", 20_000) + `,"id":8}` + "\n", "",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: invalid character '[' exceeded max depth"}}` + "\n"},
		{"truncated", `{"jsonrpc":"2.0","id":9,"method":"pi` + "\n", "",
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32700,"message":"parse error: unexpected end of JSON input"}}` + "\n"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"b","method":"ping"},3]` + "\n", "",
			`[{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"` + batchNote + `"}},` +
				`{"jsonrpc":"2.0","id":"b","error":{"code":-32600,"message":"` + batchNote + `"}},` +
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"` + batchNote + `"}}]` + "\n"},
		{"empty batch", "[]\n", "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"` + batchNote + `"}}` + "\n"},
		{"not an object", "42\n", "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: want a JSON-RPC request object"}}` + "\n"},
		{"object id", `{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}` + "\n", "",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id must be a string or a number"}}` + "\n"},
		{"NUL, the id as written", "{\"id\":\"a\\u0041<\",\"m\":\"\x00\"}\n", "",
			`{"jsonrpc":"2.0","id":"a\u0041<","error":{"code":-32700,"message":"parse error: invalid character '\\x00' in string literal"}}` + "\n"},
		{"truncated, id 1e400", `{"jsonrpc":"2.0","id":1e400,"method":"pi` + "\n", "",
			`{"jsonrpc":"2.0","id":1e400,"error":{"code":-32700,"message":"parse error: unexpected end of JSON input"}}` + "\n"},
		{"over the limit (256 bytes)", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"` + strings.Repeat("a", 300) + `"}}` + "\n" + `{"jsonrpc":"2.0","id":6,"method":"ping"}` + "\n",
			`{"jsonrpc":"2.0","id":6,"method":"ping"}` + "\n",
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"message is over the 256 bytes limit for one line; it was dropped"}}` + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pass, reply bytes.Buffer
			limit := 1 << 20
			if strings.HasPrefix(tc.name, "over") {
				limit = 256
			}
			if err := filterLines(strings.NewReader(tc.in), &pass, &reply, limit); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.pass, pass.String()); diff != "" {
				t.Errorf("passed on (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.reply, reply.String()); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
		})
	}
}

// Whatever arrives, every reply is one line of valid JSON and every line
// passed on is a JSON object.
func FuzzFilterLines(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		"[{\"id\":1},{\"id\":\"x\"},null]",
		"{\"id\":3,\"m\":\"\x00\"}",
		`{"params":[[[[[[`,
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var pass, reply bytes.Buffer
		if err := filterLines(bytes.NewReader(in), &pass, &reply, 4096); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(reply.String(), "\n"), "\n") {
			if l != "" && !json.Valid([]byte(l)) {
				t.Fatalf("reply %q is not JSON", l)
			}
		}
		for _, l := range strings.Split(strings.TrimSuffix(pass.String(), "\n"), "\n") {
			if l != "" && (!json.Valid([]byte(l)) || first([]byte(l)) != '{') {
				t.Fatalf("passed on %q, not a JSON object", l)
			}
		}
	})
}

// A request whose id can be read is answered with that id, byte for byte,
// also when mcp-go could not read the request (it would answer with a null
// id) or would write the id back as another number (issue 30, 7.1).
func TestFilterLinesKeepsTheID(t *testing.T) {
	const (
		notString = "invalid request: method must be a string"
		notFloat  = "invalid request: a numeric id must be one a float64 holds exactly (the MCP library reads ids as float64); want a string or an integer within ±2^53"
	)
	tests := []struct {
		name string
		in   string
		id   string // "" when the line passes on to mcp-go
		msg  string
	}{
		{"method a number", `{"jsonrpc":"2.0","id":5,"method":5}`, `5`, notString},
		{"method an object, string id", `{"jsonrpc":"2.0","id":"x","method":{"a":1}}`, `"x"`, notString},
		{"method null", `{"jsonrpc":"2.0","id":6,"method":null}`, `6`, notString},
		{"method a number, no id", `{"jsonrpc":"2.0","method":5}`, `null`, notString},
		{"method a number, id in capitals", `{"jsonrpc":"2.0","ID":7,"method":[]}`, `7`, notString},
		{"jsonrpc a number", `{"jsonrpc":2,"id":"j","method":"ping"}`, `"j"`, `invalid request: jsonrpc must be "2.0"`},
		{"id past float64", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, `1e400`, notFloat},
		{"id past float64, negative", `{"jsonrpc":"2.0","id":-1E+400,"method":"ping"}`, `-1E+400`, notFloat},
		{"id under float64", `{"jsonrpc":"2.0","id":1e-400,"method":"ping"}`, `1e-400`, notFloat},
		{"id past 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, `9007199254740993`, notFloat},
		{"id past float64 and method a number", `{"jsonrpc":"2.0","id":1e400,"method":5}`, `1e400`, notFloat},
		{"string id kept as written", `{"jsonrpc":"2.0","id":"<a>\u0041\/","method":5}`, `"<a>\u0041\/"`, notString},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":5}`, `null`, "invalid request: id must be a string or a number"},
		{"id 2^53", `{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`, "", ""},
		{"id 1.0e2", `{"jsonrpc":"2.0","id":1.0e2,"method":"ping"}`, "", ""},
		{"id 0.1", `{"jsonrpc":"2.0","id":0.1,"method":"ping"}`, "", ""},
		{"id -0", `{"jsonrpc":"2.0","id":-0,"method":"ping"}`, "", ""},
		{"id 0e99999999999999999999", `{"jsonrpc":"2.0","id":0e99999999999999999999,"method":"ping"}`, "", ""},
		{"a reply", `{"jsonrpc":"2.0","id":3,"result":{}}`, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pass, reply bytes.Buffer
			if err := filterLines(strings.NewReader(tc.in+"\n"), &pass, &reply, 1<<20); err != nil {
				t.Fatal(err)
			}
			wantPass, wantReply := "", ""
			if tc.id == "" {
				wantPass = tc.in + "\n"
			} else {
				wantReply = `{"jsonrpc":"2.0","id":` + tc.id + `,"error":{"code":-32600,"message":` + strconv.Quote(tc.msg) + `}}` + "\n"
			}
			if diff := cmp.Diff(wantPass, pass.String()); diff != "" {
				t.Errorf("passed on (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantReply, reply.String()); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
		})
	}
}

// Through mcp-go itself: every request whose id can be read gets a reply
// carrying it as written.
func TestListenKeepsTheID(t *testing.T) {
	ids := []string{`1e400`, `9007199254740993`, `"m"`, `4`, `"p"`}
	in := `{"jsonrpc":"2.0","id":1e400,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":"m","method":5}` + "\n" +
		`{"jsonrpc":2,"id":4,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":"p","method":"ping"}` + "\n"
	var out bytes.Buffer
	ss := server.NewStdioServer(server.NewMCPServer("t", "1"))
	ss.SetErrorLogger(log.New(io.Discard, "", 0))
	if err := Listen(context.Background(), ss, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct{ ID json.RawMessage }
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("reply %q: %v", l, err)
		}
		got = append(got, string(m.ID))
	}
	sort.Strings(got)
	sort.Strings(ids)
	if diff := cmp.Diff(ids, got); diff != "" {
		t.Errorf("reply ids (-want +got):\n%s\nreplies:\n%s", diff, out.String())
	}
}
