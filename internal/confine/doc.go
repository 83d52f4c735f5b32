// Package confine keeps file access inside chosen folders. braid reads
// files an untrusted party may have arranged: an agent names paths over
// MCP, and a cloned vault can hold a link to ~/.aws/credentials or a FIFO
// named like a note. Every such read goes through this package.
//
// The API is Dir, a granted folder held open:
//
//   - Resolve turns a path the user gave into the one the kernel will reach
//     (relative paths, "..", symbolic links followed as far as the path
//     exists), Within tells whether a resolved path lies in a granted
//     folder, and Check refuses a path no file can have. This is the grant:
//     braid serve's --allow and client roots, a source at registration.
//   - OpenDir opens a granted folder by its real path, refusing one that a
//     symbolic link has since replaced (ErrMoved).
//   - Dir.OpenFd, OpenAt, ReadAt and ReadFile open and read beneath it
//     (openat2 RESOLVE_BENEATH on Linux, else a walk with O_NOFOLLOW that
//     follows links only inside), never blocking on a FIFO or a device;
//     Dir.Mkdir, Sub, Stat and WriteFile create and rename inside it.
//
// A file of a folder source is read so:
//
//	d, err := confine.OpenDir(source)
//	if err != nil {
//		return err
//	}
//	defer d.Close()
//	data, err := d.ReadFile(path, 0) // ErrOutside for a link out of source
//
// ReadConfig is the guarded read of a small file braid takes instructions
// from (settings.json, .gitignore, a prompt, VERSION): no link as its last
// part, no FIFO, a size bound.
//
// The exception: Open, ReadFile and OpenFd take a root and a path, for a
// read that has no folder to hold: root "" opens any path, without
// blocking on a FIFO; a root that is the path itself opens just that file,
// which must not be a link. Their callers, each with why:
//
//   - notes/document.go (Get): a file source's one file (root = the file)
//     and a --follow-links source's files (root ""), read once each; a
//     folder source's files are read through a Dir.
//   - notes/files.go (extracted): a grep file's Root, which is any of the
//     three kinds; package grep reads the same files through Dirs.
//   - grep/read_unix.go (dirs.open): the same file-source and
//     --follow-links reads; folder roots are Dirs, opened once per search.
//   - grep/read_other.go: off Unix, where there is no Dir.
//   - vector/file.go (LoadTrusting, and the verify after it) and
//     vector/log.go (replay):
//     braid's own graph file and change log in its index directory, by
//     full path, Open("", path) only for its non-blocking open.
//   - prompts/prompts.go (readDir): the prompts folder itself, opened to
//     be listed (its files are read with ReadConfig).
//   - lexical/lexcheck.go (checkSegment): a segment file of braid's own
//     lexical index, by full path, Open("", path) only for its
//     non-blocking open, as vector/file.go.
//   - ingest/read.go (reader.read): a file source's one file and a
//     --follow-links source's files, as notes' Get reads them; a folder
//     source's files are read through a Dir, opened once per run.
//   - docstore/add.go (readConfined): a file AddRequest.Path names (root
//     "") and an MCP add of a file source's one file (root = the file); a
//     file in an allowed folder is read through a Dir.
//
// Caveats: off Linux a Dir holds a path, and every open resolves, checks
// and opens by path, so a link swapped in between can still lead out.
package confine
