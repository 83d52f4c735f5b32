package ingest

import (
	"time"

	"github.com/braidsearch/braid/index"
)

// A run skips reading a file whose status (statOf: size, modification and
// change times, inode, device) is the one recorded when the content its
// document holds was read (index.Store.EntriesWithStats): a write changes the
// times, a rename over the file its inode, and the change time cannot be
// set back by hand. The status recorded is the walk's, taken before the
// read, so content that changed between the two is read again next time.
// One case a status misses: a second write within the same tick of the
// file system's clock as the one before, after the walk saw the first.
// So a status is recorded only when both times are statMargin older
// than the walk (settled); a file changed just before a run is read
// and hashed again by the next one, which then records it.

// statMargin is how much older than the walk a file's modification and
// change times must be for its status to be recorded: the coarsest file
// system clocks (FAT's) tick every 2 s.
var statMargin = 3 * time.Second

// settled says whether st's times are statMargin older than now.
func settled(st index.FileStat, now time.Time) bool {
	limit := now.Add(-statMargin).UnixNano()
	return st.ModNS < limit && st.ChangeNS < limit
}

// unread says whether the file f is as the index last read it (e, its
// entry): its status is the recorded one, so its content was not read.
func unread(f file, e index.Entry) bool {
	return f.stat != nil && e.Stat != nil && *f.stat == *e.Stat && e.ETag == ""
}

// statRecord is what to record of f, listed and kept with content of
// hash, when its status is settled and not the one recorded (e); ok is
// false otherwise.
func statRecord(f file, e index.Entry, hash string) (index.StatRecord, bool) {
	if f.stat == nil || !f.settled || hash == "" || (e.Stat != nil && *e.Stat == *f.stat && e.Hash == hash) {
		return index.StatRecord{}, false
	}
	return index.StatRecord{Path: f.rel, Stat: *f.stat, Hash: hash}, true
}
