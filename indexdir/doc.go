// Package indexdir is the layout of an index directory and the checks an
// open makes of it, shared by the engine's Open and package doctor: the
// names of its files (StoreFile, LexicalDir, VersionFile, LockFile,
// SettingsFile, StoreDir), the VERSION file and the format it names
// (Version, Upgraded, SchemaVersion), the directory itself (CheckDir,
// MakeDir, RemoveCreated), its modes, the user's alone (DirMode,
// FileMode, and Tighten, which a writer runs on an older, looser
// index), the lock that lets one writer or many readers in
// (AcquireLock), a bbolt file's header (CheckBolt), the error a damaged
// file is (CorruptError, matching ErrCorrupt, naming the file and the fix)
// and the guard that turns a fault reading one into that error (Guard).
//
// Stamps are the one sealed record of files this user's braid checked
// whole (meta.db, lexical segments, vector graphs): a FILE.verified beside
// them, one line per file with its size, modification and change times,
// device and inode as the descriptor that was read describes them (Fstat),
// sealed with this user's key. A file that matches needs no second check;
// a copy, an edit, a stamp of another user or of an older format does.
//
//	created, err := indexdir.MakeDir(dir)
//	lock, err := indexdir.AcquireLock(filepath.Join(dir, indexdir.LockFile), true, "braid index")
//	upgrade, err := indexdir.Version(dir, false, index.Upgradable)
//
// The package imports nothing of braid's but its internal packages, so the
// store (package index), the lexical index and doctor can all use it.
package indexdir
