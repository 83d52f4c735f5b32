package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"

	"github.com/braidsearch/braid/internal/mcptest"
	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/opensearchtest"
)

// roundRobin is a load balancer with no stickiness: each request goes to
// the next of backends in turn, whatever its session or user.
type roundRobin struct {
	backends []*httputil.ReverseProxy
	next     atomic.Int64
	served   []atomic.Int64 // requests each backend was sent
}

func newRoundRobin(t *testing.T, urls ...string) *httptest.Server {
	lb := &roundRobin{served: make([]atomic.Int64, len(urls))}
	for _, u := range urls {
		target, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		p := httputil.NewSingleHostReverseProxy(target)
		p.FlushInterval = -1 // SSE answers pass as they are written
		lb.backends = append(lb.backends, p)
	}
	s := httptest.NewServer(lb)
	t.Cleanup(s.Close)
	t.Cleanup(func() {
		for i := range lb.served {
			if lb.served[i].Load() == 0 {
				t.Errorf("the load balancer sent server %d nothing", i)
			}
		}
	})
	return s
}

func (lb *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i := int(lb.next.Add(1)-1) % len(lb.backends)
	lb.served[i].Add(1)
	lb.backends[i].ServeHTTP(w, r)
}

// pairAnswer is a search answer as the pair test compares it: each hit's
// path, id, score and how it ranked, in rank order, and the total.
type pairAnswer struct {
	Hits  []string
	Total int
}

func pairSearch(c *client.Client, tool, query string) (pairAnswer, error) {
	hits, total, err := teamResults(c, tool, map[string]any{"query": query, "limit": 20})
	if err != nil {
		return pairAnswer{}, err
	}
	a := pairAnswer{Total: total}
	for _, h := range hits {
		a.Hits = append(a.Hits, fmt.Sprintf("%s %s %.6g %s", h.Path, h.ID, h.Score, h.Source))
	}
	return a, nil
}

// sources are the sources (the notes' name prefixes) of a's hits, sorted.
func (a pairAnswer) sources() []string {
	var out []string
	for _, h := range a.Hits {
		src, _, _ := strings.Cut(h, "-")
		if !slices.Contains(out, src) {
			out = append(out, src)
		}
	}
	sort.Strings(out)
	return out
}

// Two braid servers on one OpenSearch index answer alike (issue 46):
// alice and bob get the same hits in the same order, BM25 and hybrid,
// from either server, each only from their granted sources; behind a load
// balancer with no stickiness, calls that alternate between the servers
// (2026-07-28 stateless, and a 2025-11-25 session signed with the shared
// --session-key) answer the same; and a note erin indexes through one
// server is found through the other as soon as her index_path answers.
func TestClusterTwoServers(t *testing.T) {
	url := opensearchtest.Start(t, 1)
	hybrid := modeltest.RuntimePath() != ""
	if hybrid {
		t.Setenv("BRAID_ORT_LIB", modeltest.RuntimePath())
		t.Setenv("BRAID_MODEL", modeltest.TinyDir())
	} else {
		t.Log("no ONNX Runtime: BM25 only")
	}
	t.Setenv("BRAID_BACKEND", url)
	t.Setenv("BRAID_BACKEND_INDEX", "pair")
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the kept mirror, not the user's
	dir := t.TempDir()
	idx := teamIndex(t, dir)
	tokens := filepath.Join(dir, "tokens")
	tok := addTokens(t, tokens, [][]string{{"alice"}, {"bob", "--groups", "eng"}, {"erin"}}...)
	args := []string{"--index", idx, "serve", "--tools", "all", "--http", "127.0.0.1:0", "--auth-tokens", tokens,
		"--policy", filepath.Join(dir, "policy.json"), "--session-key", filepath.Join(dir, "session.key")}
	a, b := startServeHTTP(t, args...), startServeHTTP(t, args...)
	lb := newRoundRobin(t, a.url, b.url)

	var clients []*client.Client // closed before the servers stop
	dial := func(who, url string, legacy bool) *client.Client {
		t.Helper()
		c, _, err := mcptest.Dial(url, tok[who], legacy)
		if err != nil {
			t.Fatalf("%s: connect to %s: %v\nA: %s\nB: %s", who, url, err, a.log.String(), b.log.String())
		}
		clients = append(clients, c)
		return c
	}
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()

	type search struct{ tool, query string }
	searches := []search{{"search_keyword", "rivers"}, {"search_keyword", "secret word"}}
	if hybrid {
		searches = append(searches, search{"search", "rivers"}, search{"search", "shared words"})
	}
	grants := map[string][]string{"alice": {"alpha"}, "bob": {"beta"}}
	for _, user := range []string{"alice", "bob"} {
		onA, onB := dial(user, a.url, false), dial(user, b.url, false)
		viaLB, session := dial(user, lb.URL, false), dial(user, lb.URL, true)
		for _, s := range searches {
			want, err := pairSearch(onA, s.tool, s.query)
			if err != nil {
				t.Fatalf("%s, %s %q on A: %v", user, s.tool, s.query, err)
			}
			if got := want.sources(); !slices.Equal(got, grants[user]) || want.Total != 2 {
				t.Errorf("%s, %s %q on A: sources %v, total %d; want %v, 2", user, s.tool, s.query, got, want.Total, grants[user])
			}
			if s.tool == "search" && (len(want.Hits) == 0 || !strings.HasSuffix(want.Hits[0], " hybrid")) {
				t.Errorf("%s, %s %q: %v, want hybrid hits", user, s.tool, s.query, want.Hits)
			}
			for name, c := range map[string]*client.Client{"B": onB, "the balancer, stateless": viaLB, "the balancer, a 2025-11-25 session": session} {
				for call := range 4 { // through the balancer, alternately A and B
					got, err := pairSearch(c, s.tool, s.query)
					if err != nil {
						t.Errorf("%s, %s %q through %s, call %d: %v", user, s.tool, s.query, name, call, err)
						break
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("%s, %s %q through %s, call %d (-A +here):\n%s", user, s.tool, s.query, name, call, diff)
					}
				}
			}
		}
	}

	// erin adds a note to alpha through A; alice finds it through B, and
	// bob does not, at once: an index run refreshes the cluster index
	// before it answers.
	alpha := filepath.Join(dir, "alpha")
	if err := os.WriteFile(filepath.Join(alpha, "alpha-2.md"), []byte("# alpha note 2\n\nShared words about rivers. The secret word is alphaword2.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	erin := dial("erin", a.url, false)
	if text, isErr, err := teamCall(erin, "index_path", map[string]any{"path": alpha}); err != nil || isErr {
		t.Fatalf("erin's index_path through A: %v %s", err, text)
	}
	for user, want := range map[string][]string{"alice": {"alpha"}, "bob": nil} {
		onB := dial(user, b.url, false)
		got, err := pairSearch(onB, "search_keyword", "alphaword2")
		if err != nil {
			t.Fatalf("%s on B after the write: %v", user, err)
		}
		if !slices.Equal(got.sources(), want) {
			t.Errorf("%s on B after erin's write through A: %v, want sources %v", user, got.Hits, want)
		}
	}
	for _, c := range clients {
		c.Close()
	}
	clients = nil
	a.stop(t)
	b.stop(t)
}

// Servers started at once with one new --session-key file all get the
// key one of them made: none reads the file before it is written.
func TestSessionKeySharedAtStart(t *testing.T) {
	dir := t.TempDir()
	for round := range 20 {
		file := filepath.Join(dir, fmt.Sprintf("key-%d", round))
		keys := make([][]byte, 4)
		errs := make([]error, 4)
		var wg sync.WaitGroup
		for i := range keys {
			wg.Go(func() { keys[i], errs[i] = sessionKey(file) })
		}
		wg.Wait()
		for i := range keys {
			if errs[i] != nil {
				t.Fatalf("round %d, server %d: %v", round, i, errs[i])
			}
			if len(keys[i]) != 32 || string(keys[i]) != string(keys[0]) {
				t.Fatalf("round %d: server %d got a key of %d bytes unlike server 0's", round, i, len(keys[i]))
			}
		}
		if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("round %d: the key file: %v, %v; want mode 0600", round, fi, err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".session-key-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
