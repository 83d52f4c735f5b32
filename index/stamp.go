package index

import (
	"github.com/braidsearch/braid/indexdir"
	"golang.org/x/sys/unix"
)

// VerifyChanged is Verify, skipped when the store's file is exactly as
// this user's braid left it after a check (Stamp): the same size,
// modification and change times, device and inode, as the descriptor
// bbolt reads it through describes it, under a seal of this user's key
// (indexdir.Stamps, in meta.db.verified). A store written since by
// anything but a stamped run, a copied, cloned or edited index, or a stamp
// made elsewhere is checked in full; so is every store without a key. A
// check of a million chunks' records takes seconds; the comparison,
// microseconds.
func (s *Store) VerifyChanged() error {
	s.mu.RLock()
	ok := s.stamped()
	s.mu.RUnlock()
	if ok {
		return nil
	}
	return s.Verify()
}

// Stamp records the store file's state now, sealed with this user's
// key, so that the next VerifyChanged skips the check. Call it after the
// last commit of a run that began with a check passing. It does nothing
// without a key; a stamp it cannot write costs the next run a full check.
func (s *Store) Stamp() {
	s.mu.RLock()
	defer s.mu.RUnlock()
	s.stamp()
}

// stamp is Stamp for a caller that holds mu.
func (s *Store) stamp() {
	if st, ok := s.described(); ok {
		stamps := s.Stamps(s.stampPath())
		stamps.Add(s.db.Path(), st)
		stamps.Save()
	}
}

func (s *Store) stampPath() string { return s.db.Path() + indexdir.StampSuffix }

// stamped (the caller holds mu) says whether the stamp beside the store matches the store file
// bbolt reads and carries this user's seal. The stamp is read as a config
// file is (confine.ReadConfig): a link, FIFO or oversized file is no stamp.
func (s *Store) stamped() bool {
	st, ok := s.described()
	return ok && s.Stamps(s.stampPath()).Checked(s.db.Path(), st)
}

// described (the caller holds mu) is the store file as the descriptor bbolt reads it through
// describes it now; false when it cannot be described.
func (s *Store) described() (*unix.Stat_t, bool) {
	if s.file == nil {
		return nil, false
	}
	return indexdir.Fstat(s.file)
}

// Stamps reads the stamp file at path (NAME.verified, beside a file of
// the index) under the store's key: nil, which checks every file, when
// the store has no key to seal stamps with (SetKey, and the key loaded).
func (s *Store) Stamps(path string) *indexdir.Stamps {
	if !s.canSeal() {
		return nil
	}
	return indexdir.ReadStamps(path, s.key)
}

// canSeal says whether the store has this user's key to seal stamps with
// (SetKey, and the key loaded).
func (s *Store) canSeal() bool {
	return s != nil && s.sealing && s.keyErr == nil && len(s.key) > 0
}
