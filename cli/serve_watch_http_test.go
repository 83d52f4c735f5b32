package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"

	"github.com/braidsearch/braid/internal/mcptest"
	"github.com/braidsearch/braid/internal/testenv"
)

// hits is a search tool's answer: each hit's path in rank order, and the
// total.
type hits struct {
	Paths []string
	Total int
}

// searchHits calls the search tool name on c with query and parses its
// answer; a tool error is an error.
func searchHits(c *client.Client, name, query string, limit int) (hits, error) {
	found, total, err := teamResults(c, name, map[string]any{"query": query, "limit": limit})
	if err != nil {
		return hits{}, err
	}
	h := hits{Total: total}
	for _, x := range found {
		h.Paths = append(h.Paths, x.Path)
	}
	return h, nil
}

// until checks cond each time the server logs a line (a watch run
// logs one when it ends), until cond holds or ctx ends; it returns the
// last reason cond gave for not holding, "" when it held.
func until(ctx context.Context, log *testenv.Buffer, cond func() string) string {
	for {
		grown := log.Grown() // taken before the check: a line logged during it is not missed
		why := cond()
		if why == "" {
			return ""
		}
		select {
		case <-grown:
		case <-ctx.Done():
			return why
		}
	}
}

// A writer and many readers at once (issue 46): braid serve --http
// --watch keeps a folder indexed while four signed-in clients (both
// protocol revisions) search in a loop and the test adds 30 notes, edits
// three and deletes three. No reader's call fails or misses a note the
// writes leave alone; in the end every new note is found by its own word,
// the deleted ones are gone and the edited ones are found by their new
// text alone.
func TestServeHTTPWatchReaders(t *testing.T) {
	dir := t.TempDir()
	vault := filepath.Join(dir, "vault")
	testenv.Must(t, os.MkdirAll(vault, 0o755))
	note := func(name, body string) {
		t.Helper()
		testenv.Must(t, os.WriteFile(filepath.Join(vault, name), []byte(body), 0o644))
	}
	// steady-0..2 are edited, 3..5 deleted; 6..9, the bedrock notes, stay.
	const steady, bedrock = 10, 4
	for i := range steady {
		word := "shifting"
		if i >= steady-bedrock {
			word = "bedrock"
		}
		note(fmt.Sprintf("steady-%d.md", i), fmt.Sprintf("# Steady %d\n\nA %s note; its own word is keepword%d.\n", i, word, i))
	}
	idx := filepath.Join(dir, "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "index", vault); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	tokens := filepath.Join(dir, "tokens")
	tok := addTokens(t, tokens, []string{"alice"}, []string{"bob"})
	p := startServeHTTP(t, "--index", idx, "serve", "--http", "127.0.0.1:0", "--auth-tokens", tokens, "--watch")
	ctx, cancel := context.WithTimeout(t.Context(), testenv.Guard)
	defer cancel()
	watching := "watching " + vault
	if why := until(ctx, p.log, func() string {
		if !strings.Contains(p.log.String(), watching) {
			return "no line " + watching
		}
		return ""
	}); why != "" {
		t.Fatalf("the server never watched the vault: %s\n%s", why, p.log.String())
	}

	// Four readers search for the bedrock notes in a loop until the
	// writes are all seen.
	done := make(chan struct{})
	var calls, during atomic.Int64
	var writing atomic.Bool
	errs := make(chan error, 4)
	started := make(chan struct{}, 4)
	var wg sync.WaitGroup
	var clients []*client.Client // closed before the server stops
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	for i, user := range []string{"alice", "bob", "alice", "bob"} {
		c, _, err := mcptest.Dial(p.url, tok[user], i >= 2) // both protocol revisions
		if err != nil {
			t.Fatalf("%s: connect: %v\n%s", user, err, p.log.String())
		}
		clients = append(clients, c)
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				w := writing.Load()
				h, err := searchHits(c, "search_keyword", "bedrock", 20)
				if err == nil && h.Total != bedrock {
					err = fmt.Errorf("total %d, want the %d bedrock notes: %v", h.Total, bedrock, h.Paths)
				}
				if err != nil {
					errs <- fmt.Errorf("reader %d (%s), call %d: %w", i, user, n, err)
					return
				}
				calls.Add(1)
				if w && writing.Load() {
					during.Add(1)
				}
				if n == 0 {
					started <- struct{}{}
				}
			}
		})
	}
	for range 4 {
		<-started
	}

	// The writes, as an editor and a sync tool would make them: new notes,
	// with edits and deletions among them.
	const added = 30
	writing.Store(true)
	for i := range added {
		note(fmt.Sprintf("fresh-%02d.md", i), fmt.Sprintf("# Fresh %d\n\nA freshword note; its own word is nova%02dx.\n", i, i))
		switch i {
		case 10:
			for j := range 3 {
				note(fmt.Sprintf("steady-%d.md", j), fmt.Sprintf("# Steady %d\n\nRewritten; the new word is editedword%d.\n", j, j))
			}
		case 20:
			for j := 3; j < 6; j++ {
				testenv.Must(t, os.Remove(filepath.Join(vault, fmt.Sprintf("steady-%d.md", j))))
			}
		}
	}

	checker, _, err := mcptest.Dial(p.url, tok["alice"], false)
	if err != nil {
		t.Fatal(err)
	}
	clients = append(clients, checker)
	find := func(word string) (hits, string) {
		h, err := searchHits(checker, "search_keyword", word, 50)
		if err != nil {
			return h, err.Error()
		}
		return h, ""
	}
	why := until(ctx, p.log, func() string {
		if h, e := find("freshword"); e != "" || h.Total != added {
			return fmt.Sprintf("freshword: %d of %d new notes found %s", h.Total, added, e)
		}
		for j := range 6 {
			h, e := find(fmt.Sprintf("keepword%d", j))
			if e != "" || h.Total != 0 {
				return fmt.Sprintf("keepword%d of an edited or deleted note still found: %v %s", j, h.Paths, e)
			}
		}
		for j := range 3 {
			if h, e := find(fmt.Sprintf("editedword%d", j)); e != "" || !slices.Equal(h.Paths, []string{fmt.Sprintf("steady-%d.md", j)}) {
				return fmt.Sprintf("editedword%d: %v %s", j, h.Paths, e)
			}
		}
		return ""
	})
	writing.Store(false)
	close(done)
	wg.Wait()
	close(errs)
	for e := range errs {
		if e != nil {
			t.Error(e)
		}
	}
	if why != "" {
		t.Fatalf("the watch never caught up with the writes: %s\n%s", why, p.log.String())
	}
	for i := range added {
		word, want := fmt.Sprintf("nova%02dx", i), fmt.Sprintf("fresh-%02d.md", i)
		if h, e := find(word); e != "" || !slices.Equal(h.Paths, []string{want}) {
			t.Errorf("%s: %v %s, want %s alone", word, h.Paths, e, want)
		}
	}
	if during.Load() == 0 {
		t.Error("no reader's search was answered while the writes were being indexed")
	}
	t.Logf("%d reader calls, %d of them while the writes were being indexed", calls.Load(), during.Load())
	for _, c := range clients {
		c.Close()
	}
	clients = nil
	p.stop(t)
}
