package index

import (
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/braidsearch/braid/internal/atomicfile"
	"github.com/braidsearch/braid/internal/confine"
)

// StampSuffix names the file beside the store (meta.db.verified) that
// records the store file as this user's braid left it after a full check:
// see VerifyChanged.
const StampSuffix = ".verified"

// VerifyChanged is Verify, skipped when the store's file is exactly as
// this user's braid left it after a check (Stamp): the same size,
// modification time, device, inode and commit number, under a seal of
// this user's key. A store written since by anything but a stamped run, a
// copied, cloned or edited index, or a stamp made elsewhere is checked in
// full; so is every store without a key. A check of a million chunks'
// records takes seconds; the comparison, microseconds.
func (s *Store) VerifyChanged() error {
	if s.stamped() {
		return nil
	}
	return s.Verify()
}

// Stamp records the store file's state now, sealed with this user's
// key, so that the next VerifyChanged skips the check. Call it after the
// last commit of a run that began with a check passing. It does nothing
// without a key; a stamp it cannot write costs the next run a full check.
func (s *Store) Stamp() {
	if fields, ok := s.stampFields(); ok {
		line := strings.Join(append(fields, s.key.Seal(fields...)), " ") + "\n"
		if err := atomicfile.WriteFile(s.stampPath(), []byte(line), 0o600); err != nil {
			os.Remove(s.stampPath())
		}
	}
}

func (s *Store) stampPath() string { return s.db.Path() + StampSuffix }

// stamped says whether the stamp beside the store matches the store file
// and carries this user's seal. The stamp is read as a config file is
// (confine.ReadConfig): a link, FIFO or oversized file is no stamp.
func (s *Store) stamped() bool {
	fields, ok := s.stampFields()
	if !ok {
		return false
	}
	b, err := confine.ReadConfig(s.stampPath(), 4096)
	if err != nil {
		return false
	}
	got := strings.Fields(string(b))
	if len(got) != len(fields)+1 {
		return false
	}
	for i, f := range fields {
		if got[i] != f {
			return false
		}
	}
	return s.key.Verify(got[len(fields)], fields...)
}

// canSeal says whether the store has this user's key to seal stamps with
// (SetKey, and the key loaded).
func (s *Store) canSeal() bool {
	return s != nil && s.sealing && s.keyErr == nil && len(s.key) > 0
}

// stampFields describe the store file now; false without a key or when
// the file cannot be described.
func (s *Store) stampFields() ([]string, bool) {
	if !s.canSeal() {
		return nil, false
	}
	fi, err := os.Stat(s.db.Path())
	if err != nil {
		return nil, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, false
	}
	gen, err := s.Gen()
	if err != nil {
		return nil, false
	}
	return []string{"braid-store-v1", fmt.Sprint(fi.Size()), fmt.Sprint(fi.ModTime().UnixNano()),
		fmt.Sprint(st.Dev), fmt.Sprint(st.Ino), fmt.Sprint(gen)}, true
}
