package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Forward sends the request as JSON to the server of an index directory,
// and finds no server where none listens.
func TestForward(t *testing.T) {
	dir := t.TempDir()
	want := Request{Command: []string{"sources", "rm"}, Globals: json.RawMessage(`{"Index":"x"}`), Args: json.RawMessage(`{"Source":"a"}`), Cwd: "/tmp", TTY: true}
	if _, err := Forward(context.Background(), dir, &want, nil, nil, nil); !errors.Is(err, ErrNoServer) {
		t.Fatalf("no server: got %v, want ErrNoServer", err)
	}
	path, err := SocketPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Listen(path, func(ctx context.Context, raw []byte, sess *Session) int {
		var got Request
		if err := json.Unmarshal(raw, &got); err != nil {
			fmt.Fprint(sess.Stderr, err)
			return 1
		}
		if diff := cmp.Diff(want, got); diff != "" {
			fmt.Fprintf(sess.Stderr, "request (-want +got):\n%s", diff)
			return 1
		}
		fmt.Fprint(sess.Stdout, "ran")
		return 7
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out, errOut bytes.Buffer
	code, err := Forward(context.Background(), dir, &want, nil, &out, &errOut)
	if err != nil || code != 7 || out.String() != "ran" {
		t.Fatalf("code %d, err %v, stdout %q, stderr %q", code, err, out.String(), errOut.String())
	}
}
