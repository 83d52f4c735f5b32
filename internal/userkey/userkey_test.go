package userkey

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "braid", "key")
	k1, err := Load(path)
	if err != nil || len(k1) != 32 {
		t.Fatalf("first Load: %x, %v", k1, err)
	}
	info := testenv.Must1(os.Stat(path))(t)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("key mode %v, want 0600", info.Mode().Perm())
	}
	if d, _ := os.Stat(filepath.Dir(path)); d.Mode().Perm() != 0o700 {
		t.Errorf("key folder mode %v, want 0700", d.Mode().Perm())
	}
	k2, err := Load(path)
	if err != nil || string(k1) != string(k2) {
		t.Fatalf("second Load gave another key: %v", err)
	}
	seal := k1.Seal("a", "b")
	if !k2.Verify(seal, "a", "b") || k2.Verify(seal, "ab", "") || k2.Verify(seal, "a", "c") {
		t.Error("Verify does not tell fields apart")
	}
	other := testenv.Must1(Load(filepath.Join(dir, "other", "key")))(t)
	if other.Verify(seal, "a", "b") {
		t.Error("another user's key verifies the seal")
	}

	testenv.Must(t, os.Chmod(path, 0o644))
	if _, err := Load(path); !errors.Is(err, ErrUnsafe) {
		t.Errorf("a key open to others: %v, want ErrUnsafe", err)
	}
	testenv.Must(t, os.Remove(path))
	testenv.Must(t, os.Symlink(filepath.Join(dir, "other", "key"), path))
	if _, err := Load(path); !errors.Is(err, ErrUnsafe) {
		t.Errorf("a key that is a link: %v, want ErrUnsafe", err)
	}
}
