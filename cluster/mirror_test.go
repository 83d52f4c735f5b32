package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/opensearchtest"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/opensearch"
)

// TestClusterMirror follows one braid's writes from a second one's
// mirror on a real cluster, counting the records each Sync reads: a
// change costs in proportion to the change, at 1,000 documents and at
// 100,000.
func TestClusterMirror(t *testing.T) {
	url := opensearchtest.Start(t, 1)
	for _, n := range []int{1000, 100_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) { testMirror(t, url, n) })
	}
	t.Run("OlderBraid", func(t *testing.T) { testMirrorOlderBraid(t, url) })
}

// openCluster opens a Cluster on index name with no model, as a braid
// process would, closed when the test ends.
func openCluster(t *testing.T, url, name string) *Cluster {
	t.Helper()
	c, _, err := Open(t.Context(), opensearch.Options{URL: url, Index: name}, Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// testDoc is document i of source src, one chunk, version v of its text.
func testDoc(src string, i, v int) index.Change {
	id := fmt.Sprintf("%s-doc-%06d", src, i)
	text := fmt.Sprintf("note %d version %d about tomatoes", i, v)
	d := &index.Document{ID: id, SourceID: src, Path: fmt.Sprintf("notes/%06d.md", i), Kind: index.KindMarkdown,
		Title: fmt.Sprintf("Note %d", i), Hash: fmt.Sprintf("hash-%d-%d", i, v), Lines: 1,
		Links: []index.Link{{Target: fmt.Sprintf("notes/%06d.md", (i+1)%7)}}}
	return index.Change{Doc: d, Chunks: []index.Chunk{{ID: id + "-c0", DocID: id, Text: text, StartLine: 1, EndLine: 1}}}
}

// write sends changes through the index run's write path, batch
// documents a commit, and refreshes.
func write(t *testing.T, c *Cluster, changes []index.Change) {
	t.Helper()
	ctx := t.Context()
	tg := &target{c: c, known: map[string]sourcePath{}}
	for len(changes) > 0 {
		n := min(len(changes), 500)
		if err := tg.Commit(ctx, changes[:n]); err != nil {
			t.Fatal(err)
		}
		changes = changes[n:]
	}
	if err := c.x.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
}

// syncB runs b.Sync and returns its report, logged.
func syncB(t *testing.T, b *Cluster, what string) SyncReport {
	t.Helper()
	if err := b.Sync(t.Context()); err != nil {
		t.Fatalf("%s: Sync: %v", what, err)
	}
	r := b.LastSync()
	t.Logf("%s: full %v, %d records, %d removals read, %v", what, r.Full, r.Records, r.Gone, r.Took)
	return r
}

// mirrored returns the hash of document id in c's mirror, "" for none.
func mirrored(t *testing.T, c *Cluster, id string) string {
	t.Helper()
	d, err := c.Mirror().Doc(id)
	if err != nil {
		t.Fatal(err)
	}
	if d == nil {
		return ""
	}
	return d.Hash
}

func wantReport(t *testing.T, what string, got SyncReport, full bool, records, gone int) {
	t.Helper()
	if got.Full != full || got.Records != records || got.Gone != gone {
		t.Errorf("%s: read full %v, %d records, %d removals; want full %v, %d records, %d removals", what, got.Full, got.Records, got.Gone, full, records, gone)
	}
}

func testMirror(t *testing.T, url string, n int) {
	name := fmt.Sprintf("mirror-%d", n)
	a := openCluster(t, url, name)
	var all []index.Change
	for i := range n {
		all = append(all, testDoc("s1", i, 0))
	}
	if err := a.putSource(t.Context(), &index.Source{ID: "s1", Name: "s1", Kind: index.SourceDir, Path: "/s1"}); err != nil {
		t.Fatal(err)
	}
	write(t, a, all)

	b := openCluster(t, url, name)
	wantReport(t, "first sync", syncB(t, b, "first sync"), true, n, 0)
	if docs, _, err := b.Mirror().Counts(); err != nil || docs != n {
		t.Fatalf("mirror holds %d documents (%v), want %d", docs, err, n)
	}
	wantReport(t, "no change", syncB(t, b, "no change"), false, 0, 0)
	start := time.Now()
	if _, err := b.x.RecordSum(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Logf("the check alone (RecordSum): %v", time.Since(start))

	edit := testDoc("s1", n/2, 1)
	write(t, a, []index.Change{edit})
	wantReport(t, "one document edited", syncB(t, b, "one document edited"), false, 1, 0)
	if h := mirrored(t, b, edit.Doc.ID); h != edit.Doc.Hash {
		t.Errorf("edited document's hash in the mirror = %q, want %q", h, edit.Doc.Hash)
	}

	gone := testDoc("s1", 3, 0).Doc.ID
	write(t, a, []index.Change{{DeleteID: gone}})
	wantReport(t, "one document removed", syncB(t, b, "one document removed"), false, 0, 1)
	if h := mirrored(t, b, gone); h != "" {
		t.Errorf("removed document still in the mirror (hash %q)", h)
	}

	var more []index.Change
	for i := n; i < n+10; i++ {
		more = append(more, testDoc("s1", i, 0))
	}
	back := testDoc("s1", 3, 2) // the removed one, added again
	write(t, a, append(more, back))
	wantReport(t, "eleven documents added", syncB(t, b, "eleven documents added"), false, 11, 0)
	if h := mirrored(t, b, back.Doc.ID); h != back.Doc.Hash {
		t.Errorf("document added again: hash in the mirror %q, want %q", h, back.Doc.Hash)
	}

	// A source removed: its documents' removals, one each.
	var s2 []index.Change
	for i := range 5 {
		s2 = append(s2, testDoc("s2", i, 0))
	}
	if err := a.putSource(t.Context(), &index.Source{ID: "s2", Name: "s2", Kind: index.SourceDir, Path: "/s2"}); err != nil {
		t.Fatal(err)
	}
	write(t, a, s2)
	wantReport(t, "a source of 5 added", syncB(t, b, "a source of 5 added"), false, 5, 0)
	if err := a.x.DeleteSource(t.Context(), "s2"); err != nil {
		t.Fatal(err)
	}
	wantReport(t, "a source of 5 removed", syncB(t, b, "a source of 5 removed"), false, 0, 5)
	if h := mirrored(t, b, s2[0].Doc.ID); h != "" {
		t.Errorf("document of a removed source still in the mirror (hash %q)", h)
	}

	// A write seen after a later one's: its generation was taken before
	// the mirror's mark passed it. Sync reads on from an earlier mark.
	late, err := a.x.NextGen(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	write(t, a, []index.Change{testDoc("s1", 7, 3)})
	wantReport(t, "before the late write", syncB(t, b, "before the late write"), false, 1, 0)
	lateDoc := testDoc("s1", 8, 3)
	putRaw(t, a, lateDoc, late)
	r := syncB(t, b, "a late write")
	if r.Full || r.Records > 3 {
		t.Errorf("a late write: read full %v, %d records; want the few since an earlier mark", r.Full, r.Records)
	}
	if h := mirrored(t, b, lateDoc.Doc.ID); h != lateDoc.Doc.Hash {
		t.Errorf("late write: hash in the mirror %q, want %q", h, lateDoc.Doc.Hash)
	}
	if docs, _, err := b.Mirror().Counts(); err != nil || docs != n+10 {
		t.Errorf("mirror holds %d documents (%v), want %d", docs, err, n+10)
	}

	// A copy kept across runs (Config.MirrorDir): the next process reads
	// what changed since the last one stopped.
	keep := t.TempDir()
	k := openKept(t, url, name, keep)
	wantReport(t, "kept copy, first run", syncB(t, k, "kept copy, first run"), true, n+10, 0)
	other := openKept(t, url, name, keep) // the folder is held: a temporary copy
	if strings.HasPrefix(other.Dir(), keep) {
		t.Errorf("a second process took the held copy in %s", other.Dir())
	}
	testenv.Must(t, other.Close())
	testenv.Must(t, k.Close())
	edit2 := testDoc("s1", n/3, 4)
	write(t, a, []index.Change{edit2})
	start = time.Now()
	k = openKept(t, url, name, keep)
	defer k.Close()
	t.Logf("kept copy, next run: Open %v", time.Since(start))
	if !strings.HasPrefix(k.Dir(), keep) {
		t.Errorf("the next process's copy is in %s, want it under %s", k.Dir(), keep)
	}
	wantReport(t, "kept copy, next run", syncB(t, k, "kept copy, next run"), false, 1, 0)
	if h := mirrored(t, k, edit2.Doc.ID); h != edit2.Doc.Hash {
		t.Errorf("kept copy, next run: hash in the mirror %q, want %q", h, edit2.Doc.Hash)
	}
	if docs, _, err := k.Mirror().Counts(); err != nil || docs != n+10 {
		t.Errorf("kept copy holds %d documents (%v), want %d", docs, err, n+10)
	}
}

// openKept opens a Cluster keeping its copy under keep; the caller
// closes it.
func openKept(t *testing.T, url, name, keep string) *Cluster {
	t.Helper()
	c, _, err := Open(t.Context(), opensearch.Options{URL: url, Index: name}, Config{URL: url, MirrorDir: keep})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// putRaw writes one document's chunk as it is, at generation gen (0: as
// a braid before generations would), replacing its old chunk.
func putRaw(t *testing.T, c *Cluster, ch index.Change, gen int64) {
	t.Helper()
	tg := &target{c: c, known: map[string]sourcePath{}}
	docs, err := tg.docs(t.Context(), []index.Change{ch})
	if err != nil {
		t.Fatal(err)
	}
	for i := range docs {
		docs[i].Gen = gen
	}
	if err := c.x.Put(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
	if err := c.x.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// testMirrorOlderBraid opens an index made before generations (no gen
// field, no change index): the first Sync reads it all, the next ones
// only what changed; a write without a generation (an older braid still
// running) is found by the check and read in full.
func testMirrorOlderBraid(t *testing.T, url string) {
	const name = "mirror-old"
	model := openCluster(t, url, "mirror-model") // an index to copy the mapping from
	mapping := getJSON(t, url+"/"+model.x.Name()+"/_mapping")["mirror-model"].(map[string]any)["mappings"].(map[string]any)
	delete(mapping["properties"].(map[string]any), "gen")
	idx := getJSON(t, url+"/"+model.x.Name()+"/_settings")["mirror-model"].(map[string]any)["settings"].(map[string]any)["index"].(map[string]any)
	body, err := json.Marshal(map[string]any{
		"settings": map[string]any{"index": map[string]any{"number_of_shards": 1, "number_of_replicas": 0, "analysis": idx["analysis"], "similarity": idx["similarity"]}},
		"mappings": mapping,
	})
	testenv.Must(t, err)
	send(t, "PUT", url+"/"+name, string(body))
	var old []index.Change
	for i := range 20 {
		old = append(old, testDoc("s1", i, 0))
	}
	// What the older braid wrote: records without a generation.
	a := openCluster(t, url, name) // adds the field and the change index
	if m := send(t, "GET", url+"/"+name+"/_mapping", ""); !strings.Contains(m, `"gen":{"type":"long"}`) {
		t.Fatalf("Open did not add the gen field to an older index: %s", m)
	}
	for _, ch := range old {
		putRaw(t, a, ch, 0)
	}
	b := openCluster(t, url, name)
	wantReport(t, "first sync", syncB(t, b, "first sync"), true, 20, 0)
	write(t, a, []index.Change{testDoc("s1", 4, 1)})
	wantReport(t, "one document edited", syncB(t, b, "one document edited"), false, 1, 0)
	older := testDoc("s1", 5, 1)
	putRaw(t, a, older, 0)
	r := syncB(t, b, "an older braid's write")
	if !r.Full {
		t.Errorf("an older braid's write: read full %v, %d records; want a full read", r.Full, r.Records)
	}
	if h := mirrored(t, b, older.Doc.ID); h != older.Doc.Hash {
		t.Errorf("an older braid's write: hash in the mirror %q, want %q", h, older.Doc.Hash)
	}
	wantReport(t, "then no change", syncB(t, b, "then no change"), false, 0, 0)
}

func send(t *testing.T, method, url, body string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, strings.NewReader(body))
	testenv.Must(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	testenv.Must(t, err)
	defer resp.Body.Close()
	b := testenv.Must1(io.ReadAll(resp.Body))(t)
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %s: %s", method, url, resp.Status, b)
	}
	return string(b)
}

func getJSON(t *testing.T, url string) map[string]any {
	t.Helper()
	var m map[string]any
	testenv.Must(t, json.Unmarshal([]byte(send(t, "GET", url, "")), &m))
	return m
}
