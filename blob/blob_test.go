package blob

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

func TestPutDedupesAndGets(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), "blobs"))
	h, written, err := s.Put([]byte("hello\n"))
	if err != nil || !written {
		t.Fatalf("first Put = %v, %v; want written", written, err)
	}
	if want := Hash([]byte("hello\n")); h != want {
		t.Fatalf("hash %s, want %s", h, want)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), h[:2], h)); err != nil {
		t.Fatalf("blob not at <first 2 hex>/<hash>: %v", err)
	}
	info := testenv.Must1(os.Stat(s.Path(h)))(t)
	h2, written, err := s.Put([]byte("hello\n"))
	if err != nil || written || h2 != h {
		t.Fatalf("second Put = %s, %v, %v; want same hash, not written", h2, written, err)
	}
	if info2, _ := os.Stat(s.Path(h)); !info2.ModTime().Equal(info.ModTime()) {
		t.Error("an existing blob was rewritten")
	}
	got, err := s.Get(h)
	if err != nil || string(got) != "hello\n" {
		t.Fatalf("Get = %q, %v", got, err)
	}
	if _, err := s.Get(Hash([]byte("other"))); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a missing blob: %v, want ErrNotFound", err)
	}
	if _, err := s.Get("../../etc/passwd"); !errors.Is(err, ErrBadHash) {
		t.Errorf("Get of a bad hash: %v, want ErrBadHash", err)
	}
}

func TestGetRefusesDamagedBlob(t *testing.T) {
	s := Open(t.TempDir())
	h, _, err := s.Put([]byte("content"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.Path(h), []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(h); err == nil {
		t.Fatal("Get returned a blob whose content does not match its hash")
	}
}

func TestSweep(t *testing.T) {
	s := Open(t.TempDir())
	a, _, err := s.Put([]byte("a"))
	testenv.Must(t, err)
	b, _, err := s.Put([]byte("bb"))
	testenv.Must(t, err)
	if err := os.WriteFile(filepath.Join(s.Dir(), a[:2], ".tmp-123"), []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	removed, n, err := s.Sweep(func(h string) bool { return h == a })
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != b || n != 2 {
		t.Fatalf("Sweep removed %v (%d bytes), want [%s] (2 bytes)", removed, n, b)
	}
	if !s.Has(a) || s.Has(b) {
		t.Errorf("after Sweep: has a %v, has b %v; want true, false", s.Has(a), s.Has(b))
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), a[:2], ".tmp-123")); !os.IsNotExist(err) {
		t.Error("Sweep left a temporary file")
	}
	if _, _, err := Open(filepath.Join(t.TempDir(), "none")).Sweep(func(string) bool { return false }); err != nil {
		t.Errorf("Sweep of a missing directory: %v", err)
	}
}
