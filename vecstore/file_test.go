package vecstore_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/ingest"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/internal/userkey"
	"github.com/braidsearch/braid/vecstore"
	"github.com/braidsearch/braid/vector"
)

// fakeEmbedder gives each text a fixed unit vector and counts the texts
// it embeds.
type fakeEmbedder struct {
	dim   int
	texts int
}

func (f *fakeEmbedder) Dim() int { return f.dim }

func (f *fakeEmbedder) Embed(_ context.Context, texts []string, _ bool) ([][]float32, error) {
	f.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		h := fnv.New32a()
		h.Write([]byte(t))
		v := make([]float32, f.dim)
		v[int(h.Sum32())%f.dim] = 1
		out[i] = v
	}
	return out, nil
}

// storeWith opens a store in dir holding one document of two chunks.
func storeWith(t *testing.T, dir string) *index.Store {
	t.Helper()
	st, err := index.OpenStore(filepath.Join(dir, "meta.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	d := &index.Document{ID: "a", SourceID: "s1", Path: "a.md", Title: "a", Hash: "aaaaaaaa11"}
	p, err := st.Commit([]index.Change{{Doc: d, Chunks: []index.Chunk{
		{ID: "a#0", DocID: "a", Text: "the quick brown fox", StartLine: 1, EndLine: 1},
		{ID: "a#1", DocID: "a", Text: "a lazy dog sleeps", StartLine: 2, EndLine: 2},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.ClearPending(p.Gen); err != nil {
		t.Fatal(err)
	}
	return st
}

// saved embeds the store's chunks with model "m" and saves the graph.
func saved(t *testing.T, dir string, st *index.Store) *fakeEmbedder {
	t.Helper()
	emb := &fakeEmbedder{dim: 4}
	vs := &ingest.Vectors{Embedder: emb, Model: "m", Index: vector.New(emb.dim, nil)}
	if err := vecstore.Save(context.Background(), st, dir, vs, true); err != nil {
		t.Fatal(err)
	}
	return emb
}

func TestFileIsPerModel(t *testing.T) {
	a, b := vecstore.File("idx", "model-a"), vecstore.File("idx", "model-b")
	if a == b {
		t.Errorf("File gives %s for both models", a)
	}
	if ok, _ := filepath.Match(filepath.Join("idx", "vectors-*.hnsw"), a); !ok {
		t.Errorf("File = %s, want idx/vectors-*.hnsw (doctor finds the graphs by that pattern)", a)
	}
	if a != vecstore.File("idx", "model-a") {
		t.Error("File is not stable")
	}
}

// A saved graph loads sound and full, without calling the model.
func TestSaveThenLoad(t *testing.T) {
	dir := t.TempDir()
	st := storeWith(t, dir)
	if emb := saved(t, dir, st); emb.texts != 2 {
		t.Errorf("Save embedded %d texts, want 2", emb.texts)
	}
	emb := &fakeEmbedder{dim: 4}
	vi, damaged, err := vecstore.Load(context.Background(), st, vecstore.Options{Dir: dir, Model: "m", Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if vi.Len() != 2 || damaged != "" || emb.texts != 0 {
		t.Errorf("Load = %d chunks, damaged %q, %d texts embedded; want 2, \"\", 0", vi.Len(), damaged, emb.texts)
	}
}

// A damaged file has lost the vectors it alone held (the store keeps none
// once the graph is saved): Load says how many chunks have no vector and
// what brings them back, leaves the file in place, and the next save with
// fill embeds them again.
func TestLoadDamagedSaysWhatIsLost(t *testing.T) {
	dir := t.TempDir()
	st := storeWith(t, dir)
	saved(t, dir, st)
	file := vecstore.File(dir, "m")
	if err := os.WriteFile(file, []byte("not a graph"), 0o644); err != nil {
		t.Fatal(err)
	}
	emb := &fakeEmbedder{dim: 4}
	vi, damaged, err := vecstore.Load(context.Background(), st, vecstore.Options{Dir: dir, Model: "m", Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if vi.Len() != 0 || emb.texts != 0 {
		t.Errorf("graph loaded from a damaged file has %d chunks after embedding %d texts, want 0 and 0", vi.Len(), emb.texts)
	}
	for _, want := range []string{filepath.Base(file) + " is damaged", "2 chunks have no vector", "doctor --repair", "embeds them again with the model"} {
		if !strings.Contains(damaged, want) {
			t.Errorf("damaged = %q, want it to say %q", damaged, want)
		}
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("the damaged file is gone: %v", err)
	}
	if err := vecstore.Save(context.Background(), st, dir, &ingest.Vectors{Embedder: emb, Model: "m", Index: vi}, true); err != nil {
		t.Fatal(err)
	}
	vi, damaged, err = vecstore.Load(context.Background(), st, vecstore.Options{Dir: dir, Model: "m", Embedder: emb})
	if err != nil || vi.Len() != 2 || damaged != "" || emb.texts != 2 {
		t.Errorf("after a save with fill: %v, %d chunks, damaged %q, %d texts embedded; want 2 chunks, 2 texts", err, vi.Len(), damaged, emb.texts)
	}
}

// A damaged file whose chunks the store still holds embeddings of (a
// crash before the graph's first save) is rebuilt from them whole.
func TestLoadDamagedRebuildsFromTheStore(t *testing.T) {
	dir := t.TempDir()
	st := storeWith(t, dir)
	emb := &fakeEmbedder{dim: 4}
	vecs, _ := emb.Embed(context.Background(), []string{"x", "y"}, false)
	var hashes []string
	for _, c := range testenv.Must1(st.Chunks([]string{"a#0", "a#1"}))(t) {
		hashes = append(hashes, index.TextHash(index.EmbedInput("a", "", c)))
	}
	testenv.Must(t, st.PutVectors("m", hashes, vecs))
	file := vecstore.File(dir, "m")
	testenv.Must(t, os.WriteFile(file, []byte("not a graph"), 0o644))
	vi, damaged, err := vecstore.Load(context.Background(), st, vecstore.Options{Dir: dir, Model: "m", Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if vi.Len() != 2 || emb.texts != 2 || !strings.Contains(damaged, "rebuilt from the stored embeddings") {
		t.Errorf("Load = %d chunks, %d texts embedded, damaged %q; want 2 rebuilt from the store, no model call", vi.Len(), emb.texts-2, damaged)
	}
}

// A graph of another M is rebuilt from the file's own vectors: no model
// call, though the store holds no embedding.
func TestLoadOtherMRebuildsFromTheFile(t *testing.T) {
	dir := t.TempDir()
	st := storeWith(t, dir)
	saved(t, dir, st)
	if n := testenv.Must1(st.CountVectors("m"))(t); n != 0 {
		t.Fatalf("%d embeddings stored after a complete save, want 0", n)
	}
	emb := &fakeEmbedder{dim: 4}
	vi, damaged, err := vecstore.Load(context.Background(), st, vecstore.Options{Dir: dir, Model: "m", Embedder: emb, Vector: &vector.Options{M: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if vi.Len() != 2 || damaged != "" || emb.texts != 0 {
		t.Errorf("Load with M=4 = %d chunks, damaged %q, %d texts embedded; want 2, \"\", 0", vi.Len(), damaged, emb.texts)
	}
}

// A missing file is rebuilt quietly; another model's embeddings are not
// used, and OtherModels names them.
func TestLoadOtherModel(t *testing.T) {
	dir := t.TempDir()
	st := storeWith(t, dir)
	saved(t, dir, st)
	vi, damaged, err := vecstore.Load(context.Background(), st, vecstore.Options{Dir: dir, Model: "n", Embedder: &fakeEmbedder{dim: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if vi.Len() != 0 || damaged != "" {
		t.Errorf("Load of model n = %d chunks, damaged %q; want 0, \"\"", vi.Len(), damaged)
	}
	if got := vecstore.OtherModels(st, "n"); got != "m" {
		t.Errorf("OtherModels(n) = %q, want m", got)
	}
	if got := vecstore.OtherModels(st, "m"); got != "" {
		t.Errorf("OtherModels(m) = %q, want none", got)
	}
}

func TestLoadBadDimension(t *testing.T) {
	dir := t.TempDir()
	st := storeWith(t, dir)
	_, _, err := vecstore.Load(context.Background(), st, vecstore.Options{Dir: dir, Model: "m", Embedder: &fakeEmbedder{dim: 0}})
	if !errors.Is(err, index.ErrBadOption) {
		t.Errorf("Load with dimension 0: %v, want index.ErrBadOption", err)
	}
}

// A graph behind the store drops the chunks the store no longer has.
func TestLoadDropsStale(t *testing.T) {
	dir := t.TempDir()
	st := storeWith(t, dir)
	saved(t, dir, st)
	p, err := st.Commit([]index.Change{{DeleteID: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.ClearPending(p.Gen); err != nil {
		t.Fatal(err)
	}
	vi, damaged, err := vecstore.Load(context.Background(), st, vecstore.Options{Dir: dir, Model: "m", Embedder: &fakeEmbedder{dim: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if vi.Len() != 0 || damaged != "" {
		t.Errorf("Load after deleting the document = %d chunks (%v), damaged %q; want 0, \"\"", vi.Len(), vi.IDs(), damaged)
	}
}

// Load takes a graph Preload read for the same file and generation in
// place of the file (here removed after the read), and reads the file
// itself for another model, other options or a commit in between.
func TestLoadPreloaded(t *testing.T) {
	load := func(t *testing.T, dir string, st *index.Store, read *vecstore.Read, opt *vector.Options) *vector.Index {
		t.Helper()
		vi, damaged, err := vecstore.Load(context.Background(), st, vecstore.Options{Dir: dir, Model: "m", Embedder: &fakeEmbedder{dim: 4}, Vector: opt, Read: read})
		if err != nil {
			t.Fatal(err)
		}
		if damaged != "" {
			t.Errorf("damaged %q, want \"\"", damaged)
		}
		return vi
	}
	t.Run("taken", func(t *testing.T) {
		dir := t.TempDir()
		st := storeWith(t, dir)
		saved(t, dir, st)
		read := vecstore.Preload(st, vecstore.Options{Dir: dir, Model: "m"})
		testenv.Must(t, os.Remove(vecstore.File(dir, "m")))
		if vi := load(t, dir, st, read, nil); vi.Len() != 2 {
			t.Errorf("Load of the preloaded graph = %d chunks, want 2", vi.Len())
		}
	})
	t.Run("another model or options", func(t *testing.T) {
		dir := t.TempDir()
		st := storeWith(t, dir)
		saved(t, dir, st)
		other := vecstore.Preload(st, vecstore.Options{Dir: dir, Model: "other"}) // no such file
		if vi := load(t, dir, st, other, nil); vi.Len() != 2 {
			t.Errorf("Load given another model's read = %d chunks, want the file's 2", vi.Len())
		}
		ef := vecstore.Preload(st, vecstore.Options{Dir: dir, Model: "m", Vector: &vector.Options{EfSearch: 7}})
		testenv.Must(t, os.WriteFile(vecstore.File(dir, "m"), []byte("not a graph"), 0o644))
		vi, damaged, err := vecstore.Load(context.Background(), st, vecstore.Options{Dir: dir, Model: "m", Embedder: &fakeEmbedder{dim: 4}, Read: ef})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(damaged, "is damaged") {
			t.Errorf("Load given a read with other options = %d chunks, damaged %q; want the file read again, and found damaged", vi.Len(), damaged)
		}
	})
	t.Run("a commit in between", func(t *testing.T) {
		dir := t.TempDir()
		st := storeWith(t, dir)
		saved(t, dir, st)
		read := vecstore.Preload(st, vecstore.Options{Dir: dir, Model: "m"})
		d := &index.Document{ID: "b", SourceID: "s1", Path: "b.md", Title: "b", Hash: "bbbbbbbb11"}
		p, err := st.Commit([]index.Change{{Doc: d, Chunks: []index.Chunk{{ID: "b#0", DocID: "b", Text: "a third chunk", StartLine: 1, EndLine: 1}}}})
		testenv.Must(t, err)
		testenv.Must(t, st.ClearPending(p.Gen))
		saved(t, dir, st) // the new graph, its embeddings dropped from the store
		if vi := load(t, dir, st, read, nil); vi.Len() != 3 {
			t.Errorf("Load given a read from before a commit = %d chunks, want the new file's 3", vi.Len())
		}
	})
}

// A graph saved again with nothing changed since it was loaded is not
// rewritten (a no-change braid index writes nothing); one chunk more is.
func TestSaveUnchangedWritesNothing(t *testing.T) {
	dir := t.TempDir()
	st := storeWith(t, dir)
	saved(t, dir, st)
	path := vecstore.File(dir, "m")
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	emb := &fakeEmbedder{dim: 4}
	vi, _, err := vecstore.Load(context.Background(), st, vecstore.Options{Dir: dir, Model: "m", Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	vs := &ingest.Vectors{Embedder: emb, Model: "m", Index: vi}
	if err := vecstore.Save(context.Background(), st, dir, vs, true); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(path); err != nil || !os.SameFile(before, after) {
		t.Errorf("an unchanged graph was written again (err %v)", err)
	}
	if err := vi.Add("extra", []float32{0, 1, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if err := vecstore.Save(context.Background(), st, dir, vs, false); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(path); err != nil || os.SameFile(before, after) {
		t.Errorf("a changed graph was not written (err %v)", err)
	}
}

// TestSaveDropsStoredEmbeddings: a save that leaves the graph holding
// every chunk (fill) deletes every embedding the store holds for the
// model, keeping the record that the index is embedded with it; a save
// without fill deletes only those its run added to the graph.
func TestSaveDropsStoredEmbeddings(t *testing.T) {
	dir := t.TempDir()
	st := storeWith(t, dir)
	saved(t, dir, st)
	count := func() int { return testenv.Must1(st.CountVectors("m"))(t) }
	if n := count(); n != 0 {
		t.Errorf("%d embeddings stored after a complete save, want 0 (the graph file holds them)", n)
	}
	if models := testenv.Must1(st.EmbeddingModels())(t); len(models) != 1 || models[0] != "m" {
		t.Errorf("EmbeddingModels = %v, want [m]", models)
	}
	left := make([]string, 10)
	vecs := make([][]float32, 10)
	for i := range left {
		left[i], vecs[i] = fmt.Sprintf("left-%d", i), []float32{1, 0, 0, 0}
	}
	testenv.Must(t, st.PutVectors("m", left, vecs))
	save := func(fill bool) {
		t.Helper()
		emb := &fakeEmbedder{dim: 4}
		vi, _, err := vecstore.Load(context.Background(), st, vecstore.Options{Dir: dir, Model: "m", Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		testenv.Must(t, vi.Add("extra", []float32{0, 1, 0, 0})) // a changed graph
		testenv.Must(t, vecstore.Save(context.Background(), st, dir, &ingest.Vectors{Embedder: emb, Model: "m", Index: vi}, fill))
	}
	save(false)
	if n := count(); n != 10 {
		t.Errorf("%d embeddings after a save without fill, want the 10 it did not add kept", n)
	}
	save(true)
	if n := count(); n != 0 {
		t.Errorf("%d embeddings after a save with fill, want 0", n)
	}
	if models := testenv.Must1(st.EmbeddingModels())(t); len(models) != 1 || models[0] != "m" {
		t.Errorf("EmbeddingModels after the embeddings went = %v, want [m]", models)
	}
}

// A graph file read whole once is stamped (FILE.verified, under the
// user's key) and not read again while it stays as it was; a graph
// rewritten since, or a store without the key, has its checksums read.
func TestLoadStampsTheGraph(t *testing.T) {
	dir := t.TempDir()
	st := storeWith(t, dir)
	saved(t, dir, st)
	k, err := userkey.Load(filepath.Join(t.TempDir(), "key"))
	if err != nil {
		t.Fatal(err)
	}
	st.SetKey(k, nil)
	file := vecstore.File(dir, "m")
	stamp := file + indexdir.StampSuffix
	load := func() {
		t.Helper()
		vi, damaged, err := vecstore.Load(context.Background(), st, vecstore.Options{Dir: dir, Model: "m", Embedder: &fakeEmbedder{dim: 4}})
		if err != nil || damaged != "" || vi.Len() != 2 {
			t.Fatalf("Load: %v, damaged %q", err, damaged)
		}
	}
	inode := func() uint64 {
		t.Helper()
		fi, err := os.Lstat(stamp)
		if err != nil {
			t.Fatalf("no stamp: %v", err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	load()
	first := inode()
	load()
	if inode() != first {
		t.Error("the second load read the graph's checksums again (and rewrote its stamp)")
	}

	// Rewritten in place, the same bytes: the change time moves (written
	// until the clock, which may tick coarsely, is past the stamp's), so
	// the file is read again and stamped anew.
	line, err := os.ReadFile(stamp)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(file)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(fi.Sys().(*syscall.Stat_t).Ctim.Nano()) != strings.Fields(string(line))[4] {
			break
		}
	}
	load()
	if inode() == first {
		t.Error("a graph written since its stamp was not read again")
	}
}

// TestSaveFillsWhatIsMissing: a save with fill records that the graph
// file holds every chunk at the store's commit, and the next such save
// skips the walk over every chunk only while that holds. A graph changed
// in memory, a commit the graph did not see, and a save without fill
// (which may leave chunks out) each make the next save with fill look
// again and embed what is missing.
func TestSaveFillsWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	st := storeWith(t, dir)
	saved(t, dir, st)
	filled := func() (uint64, bool) {
		t.Helper()
		at, ok, err := st.Filled("m")
		testenv.Must(t, err)
		return at, ok
	}
	gen := testenv.Must1(st.Gen())(t)
	if at, ok := filled(); !ok || at != gen {
		t.Fatalf("Filled = %d, %v after a save with fill at commit %d", at, ok, gen)
	}
	load := func() (*fakeEmbedder, *ingest.Vectors) {
		t.Helper()
		emb := &fakeEmbedder{dim: 4}
		vi, _, err := vecstore.Load(context.Background(), st, vecstore.Options{Dir: dir, Model: "m", Embedder: emb})
		testenv.Must(t, err)
		return emb, &ingest.Vectors{Embedder: emb, Model: "m", Index: vi}
	}
	save := func(vs *ingest.Vectors, fill bool) {
		t.Helper()
		testenv.Must(t, vecstore.Save(context.Background(), st, dir, vs, fill))
	}
	// A chunk the graph lost in memory is embedded again.
	emb, vs := load()
	vs.Index.Delete("a#1")
	save(vs, true)
	if emb.texts != 1 || vs.Index.Len() != 2 {
		t.Errorf("a graph that lost a chunk: %d texts embedded, %d chunks; want 1, 2", emb.texts, vs.Index.Len())
	}
	// A commit the graph did not see.
	d := &index.Document{ID: "b", SourceID: "s1", Path: "b.md", Title: "b", Hash: "bbbbbbbb22"}
	p, err := st.Commit([]index.Change{{Doc: d, Chunks: []index.Chunk{{ID: "b#0", DocID: "b", Text: "a heron wades", StartLine: 1, EndLine: 1}}}})
	testenv.Must(t, err)
	testenv.Must(t, st.ClearPending(p.Gen))
	emb, vs = load()
	save(vs, true)
	if emb.texts != 1 || vs.Index.Len() != 3 {
		t.Errorf("after a commit the graph missed: %d texts embedded, %d chunks; want 1, 3", emb.texts, vs.Index.Len())
	}
	// A save without fill forgets that the file is whole.
	_, vs = load()
	save(vs, false)
	if _, ok := filled(); ok {
		t.Error("Filled still set after a save without fill")
	}
	emb, vs = load()
	save(vs, true)
	if at, ok := filled(); !ok || at != p.Gen || emb.texts != 0 || vs.Index.Len() != 3 {
		t.Errorf("a whole graph saved with fill: Filled %d, %v, %d texts embedded, %d chunks; want %d, true, 0, 3", at, ok, emb.texts, vs.Index.Len(), p.Gen)
	}
}
