package index

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/internal/userkey"
	bolt "go.etcd.io/bbolt"
)

// TestStamp checks that VerifyChanged skips the full check only for a
// store file exactly as a stamped run left it, under this user's key: a
// reopen keeps the stamp, any write or another user's stamp does not, a
// link or FIFO in the stamp's place is no stamp, and a record damaged
// after the stamp is caught.
func TestStamp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "meta.db")
	key := func(name string) userkey.Key {
		k, err := userkey.Load(filepath.Join(t.TempDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	mine, theirs := key("mine"), key("theirs")
	open := func(k userkey.Key) *Store {
		st, err := OpenStore(path, false)
		if err != nil {
			t.Fatal(err)
		}
		st.SetKey(k, nil)
		return st
	}
	st := open(mine)
	if st.stamped() {
		t.Fatal("stamped before any Stamp")
	}
	st.Stamp()
	if !st.stamped() {
		t.Fatal("not stamped right after Stamp")
	}
	st.Close()

	// Opening the store again for writing does not write it.
	st = open(mine)
	if !st.stamped() {
		t.Error("a writer's open changed the store file")
	}
	st.Close()
	st = open(theirs)
	if st.stamped() {
		t.Error("another user's key accepts this user's stamp")
	}
	st.Close()

	// A write after the stamp: the full check runs, and finds a record
	// that does not decode.
	st = open(mine)
	defer func() { st.Close() }()
	if err := st.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketDocs).Put([]byte("x"), []byte("{not json")) }); err != nil {
		t.Fatal(err)
	}
	if st.stamped() {
		t.Error("stamped after a write")
	}
	if err := st.VerifyChanged(); err == nil {
		t.Error("VerifyChanged passed a store with a damaged record written after the stamp")
	}
	if err := st.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketDocs).Delete([]byte("x")) }); err != nil {
		t.Fatal(err)
	}
	if err := st.VerifyChanged(); err != nil {
		t.Fatal(err)
	}
	st.Stamp()

	// Something else in the stamp's place is no stamp, and cannot block.
	stamp := st.stampPath()
	good, err := os.ReadFile(stamp)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "stamp")
	if err := os.WriteFile(elsewhere, good, 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.Must(t, os.Remove(stamp))
	if err := os.Symlink(elsewhere, stamp); err != nil {
		t.Fatal(err)
	}
	if st.stamped() {
		t.Error("a link to a good stamp counts as the stamp")
	}
	testenv.Must(t, os.Remove(stamp))
	if err := syscall.Mkfifo(stamp, 0o600); err != nil {
		t.Fatal(err)
	}
	if st.stamped() {
		t.Error("a FIFO counts as the stamp")
	}
	// Stamp replaces whatever is there with a file.
	st.Stamp()
	if fi, err := os.Lstat(stamp); err != nil || !fi.Mode().IsRegular() || !st.stamped() {
		t.Errorf("Stamp over a FIFO: %v, %v; want a regular file that verifies", fi, err)
	}
	if err := st.VerifyChanged(); err != nil {
		t.Fatal(err)
	}
}
