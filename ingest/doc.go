// Package ingest brings an index in step with its sources: it lists a
// source's files, reads the ones that changed, turns them into documents
// and chunks, and commits them to the store, the lexical index and the
// vectors of package index (or to a Remote target, a cluster).
//
// A source is a folder (walked honouring .gitignore, hidden entries and
// the source's globs; Indexer.IndexPaths looks only at the paths a watch
// saw change), a single file, a BEIR corpus (one JSON document a line),
// the objects under an s3:// prefix (listed whole first, downloaded only
// when their ETag changed, their content kept in the blob store so get,
// cite and grep read them offline) or the document store's own records.
// SourceSpec.Source checks a path and options and turns them into the
// source record index keeps; Watched picks the sources a watch follows.
// ingest.go reads the pipeline top to bottom: list, read, compare,
// extract, parse, chunk, record, commit.
//
// Bounds: a file over DefaultMaxFileSize (8 MB; DefaultMaxDocumentSize,
// 64 MB, for PDF, DOCX and ODT) or its source's MaxFileSize is skipped; a
// source indexes its first DefaultMaxFiles (200,000) files in path order
// and a document at most DefaultMaxChunks (20,000) chunks; a .gitignore
// over 1 MiB is not read; an image takes text from at most 32 embeds;
// at most 8 S3 downloads run at once. Package extract bounds each
// extraction in time, memory, pages and size, and package markdown caps
// a document's tags, links, headings and aliases. What is skipped is
// counted in Summary.Skipped, with the files in Summary.Errors,
// NotExtracted, Capped or Warnings; none of it fails the run, except for
// a file source's only file.
//
// Caveats: an Indexer is not safe for concurrent use, and index.Lock
// keeps other processes from writing at the same time. Each commit is
// crash-safe on its own (index.Commit, index.Recover), so a run that
// fails or is cancelled leaves the batches it committed and the next run
// finishes the rest; cancelling the run's ctx stops it between windows of
// files and stops a PDF extraction under way. Symbolic links to folders are
// not followed, and links to files only inside the source unless it sets
// FollowLinks. A Remote target holds folder, file and BEIR sources only.
// A file is not read again while its status (size, times, inode; on
// Linux) is the one recorded with its indexed content; a status is
// recorded only when its times are 3 s older than the walk, so a file
// written just before a run is read by the next one too (filestat.go).
//
//	ix := &ingest.Indexer{Store: st, Lexical: lex, Blobs: blobs}
//	src, _, err := ingest.SourceSpec{Path: "notes"}.Source(st.Source)
//	if err != nil {
//		return err
//	}
//	var sum ingest.Summary
//	err = ix.Index(ctx, src, &sum)
//	fmt.Print(sum.Text())
package ingest
