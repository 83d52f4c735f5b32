package mcpserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
