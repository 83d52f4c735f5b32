package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/braidsearch/braid/internal/userkey"
)

// slackStore is a stamped store whose file is mostly free pages: 4,000
// chunk records of about 1 KB kept, and 20 MB of embeddings written and
// then deleted, as the embeddings waiting for the graph's save are.
func slackStore(t *testing.T) (*Store, string, userkey.Key) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "meta.db")
	st, err := OpenStore(path, false)
	if err != nil {
		t.Fatal(err)
	}
	key, err := userkey.Load(filepath.Join(t.TempDir(), "key"))
	if err != nil {
		t.Fatal(err)
	}
	st.SetKey(key, nil)
	text := strings.Repeat("words of a chunk ", 60)
	vec := make([]byte, 1536)
	for batch := 0; batch < 4; batch++ {
		if err := st.Update(func(tx *bolt.Tx) error {
			for i := batch * 1000; i < (batch+1)*1000; i++ {
				if err := tx.Bucket(bucketChunks).Put(fmt.Appendf(nil, "%08x", i*7919%65536), fmt.Appendf(nil, `{"text":%q}`, text)); err != nil {
					return err
				}
			}
			for i := range 3300 {
				vec[0], vec[1] = byte(i), byte(batch)
				if err := tx.Bucket(bucketVectors).Put(fmt.Appendf(nil, "m\x00%d.%d", batch, i), vec); err != nil {
					return err
				}
			}
			// A nested bucket, with a sequence of its own.
			inner, err := tx.Bucket(bucketSessions).CreateBucketIfNotExists([]byte("inner"))
			if err != nil {
				return err
			}
			if err := inner.Put(fmt.Appendf(nil, "k%d", batch), []byte("v")); err != nil {
				return err
			}
			if err := inner.SetSequence(uint64(batch + 3)); err != nil {
				return err
			}
			return tx.Bucket(bucketMeta).SetSequence(uint64(batch + 7))
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketVectors)
		c := b.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if err := c.Delete(); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.Verify(); err != nil {
		t.Fatal(err)
	}
	st.Stamp()
	return st, path, key
}

// contents is every bucket of the store, nested ones by their path: its
// sequence and its keys and values.
func contents(t *testing.T, st *Store) map[string]map[string]string {
	t.Helper()
	all := map[string]map[string]string{}
	var walk func(name string, b *bolt.Bucket) error
	walk = func(name string, b *bolt.Bucket) error {
		m := map[string]string{"\x00sequence": fmt.Sprint(b.Sequence())}
		all[name] = m
		return b.ForEach(func(k, v []byte) error {
			if v == nil {
				m[string(k)] = "\x00bucket"
				return walk(name+"/"+string(k), b.Bucket(k))
			}
			m[string(k)] = string(v)
			return nil
		})
	}
	if err := st.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error { return walk(string(name), b) })
	}); err != nil {
		t.Fatal(err)
	}
	return all
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestCompact: a store left mostly free is rewritten smaller with every
// bucket, key, value and sequence as it was, stays stamped as checked,
// opens and verifies, and takes writes after; readers of this process
// running meanwhile see the store whole. A store without that much free
// is left as it is.
func TestCompact(t *testing.T) {
	st, path, _ := slackStore(t)
	defer func() { st.Close() }()
	want := contents(t, st)
	if slack, size := st.Slack(); !CompactWorth(slack, size, CompactMinSlack) {
		t.Fatalf("slack %d of %d bytes is not worth a compaction", slack, size)
	}
	before := fileSize(t, path)

	// Readers of this process during the compaction.
	var stop atomic.Bool
	var wg sync.WaitGroup
	var reads atomic.Int64
	readErr := make(chan error, 2)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				n := 0
				if err := st.View(func(tx *bolt.Tx) error { n = tx.Bucket(bucketChunks).Stats().KeyN; return nil }); err != nil || n != 4000 {
					readErr <- fmt.Errorf("a read during the compaction: %d chunks, %v", n, err)
					return
				}
				reads.Add(1)
			}
		}()
	}
	c, err := st.Compact(CompactMinSlack)
	stop.Store(true)
	wg.Wait()
	close(readErr)
	for err := range readErr {
		t.Error(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if c == nil {
		t.Fatal("no compaction of a store whose file is mostly free")
	}
	after := fileSize(t, path)
	t.Logf("compacted %d → %d bytes after %d reads", before, after, reads.Load())
	if c.Before != before || c.After != after || after*2 > before {
		t.Errorf("compaction %+v, file %d → %d bytes; want it to say so and to halve the file at least", c, before, after)
	}
	if _, err := os.Stat(path + CompactSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left behind: %v", CompactSuffix, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("compacted meta.db mode %v, want 0600", fi.Mode().Perm())
	}
	if diff := cmp.Diff(want, contents(t, st)); diff != "" {
		t.Errorf("contents after the compaction (-want +got):\n%s", diff)
	}
	if !st.stamped() {
		t.Error("the compacted store is not stamped as checked")
	}
	if err := st.Verify(); err != nil {
		t.Error(err)
	}
	if err := st.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketChunks).Put([]byte("new"), []byte(`{}`)) }); err != nil {
		t.Fatalf("a write after the compaction: %v", err)
	}
	want["chunks"]["new"] = "{}"
	st.Close()

	st, err = OpenStore(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, contents(t, st)); diff != "" {
		t.Errorf("contents after a reopen (-want +got):\n%s", diff)
	}
	if err := st.Verify(); err != nil {
		t.Error(err)
	}

	// Nothing freed since: no compaction, the file untouched.
	if err := st.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketChunks).Delete([]byte("new")) }); err != nil {
		t.Fatal(err)
	}
	size := fileSize(t, path)
	if c, err := st.Compact(CompactMinSlack); c != nil || err != nil {
		t.Errorf("a compact store compacted again: %+v, %v", c, err)
	}
	if fileSize(t, path) != size {
		t.Error("the file changed without a compaction")
	}
}

// TestCompactCrash: a compaction stopped after its copy is written, as a
// crash before the rename would, leaves meta.db as it was (and stamped),
// and the next writer's open removes the copy; stopped after the rename,
// it leaves the compacted file whole, which opens and verifies.
func TestCompactCrash(t *testing.T) {
	for _, step := range []string{"written", "renamed"} {
		t.Run(step, func(t *testing.T) {
			st, path, key := slackStore(t)
			want := contents(t, st)
			before := fileSize(t, path)
			compactHook = func(s string) error {
				if s == step {
					return errors.New("crash")
				}
				return nil
			}
			defer func() { compactHook = nil }()
			if _, err := st.Compact(0); err == nil {
				t.Fatal("no error from a compaction stopped at " + step)
			}
			st.Close()
			_, err := os.Stat(path + CompactSuffix)
			if step == "written" {
				if err != nil {
					t.Fatalf("the copy is not there after a crash before the rename: %v", err)
				}
				if got := fileSize(t, path); got != before {
					t.Errorf("meta.db is %d bytes after a crash before the rename, was %d", got, before)
				}
			} else if got := fileSize(t, path); got*2 > before {
				t.Errorf("meta.db is %d bytes after the rename, was %d: not the compacted file", got, before)
			}
			ro, err := OpenStore(path, true)
			if err != nil {
				t.Fatal(err)
			}
			ro.Close()
			if step == "written" {
				if _, err := os.Stat(path + CompactSuffix); err != nil {
					t.Error("a reader's open removed the copy: only a writer may")
				}
			}
			st, err = OpenStore(path, false)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			st.SetKey(key, nil)
			if step == "written" && !st.stamped() {
				t.Error("meta.db lost its stamp to a compaction that did not replace it")
			}
			if _, err := os.Stat(path + CompactSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a writer's open left the crashed compaction's copy: %v", err)
			}
			if diff := cmp.Diff(want, contents(t, st)); diff != "" {
				t.Errorf("contents after the crash (-want +got):\n%s", diff)
			}
			if err := st.VerifyChanged(); err != nil {
				t.Error(err)
			}
		})
	}
}
