// Package cluster is the engine's side of the OpenSearch backend: a
// retriever that searches an index on a cluster (Lexical, Vector, Read,
// Backlinks, Sources), the index run that writes through it (Index), a
// local bbolt copy of the cluster's documents kept in step (Sync), the
// embedding model recorded in the index's metadata, and what Doctor and
// Stats report of it.
//
// The package works on an *opensearch.Index and a local *index.Store that
// the engine opens and hands it in a Config; it never imports the root
// package, and the engine builds its own Stats and Check values from what
// Count and Doctor return.
//
//	c, saved, err := cluster.New(ctx, cluster.Config{Index: x, Mirror: st, URL: url})
//	if err != nil {
//		return err
//	}
//	hits, total, err := c.Lexical(ctx, req)
//
// Caveats: a Cluster whose local copy is new (a temporary folder, or
// the first run with Config.MirrorDir) reads at its first Sync the
// document record every first chunk carries, one request per 500
// documents; a copy kept in Config.MirrorDir starts from where the last
// run left it. Later Syncs read only the records written
// and the removals recorded since (each index run's write takes a
// generation from the cluster, opensearch.Index.NextGen), and check the
// copy with one request (opensearch.Index.RecordSum), reading everything
// again only when the check finds a change it missed (an older braid's
// write). A Cluster is safe for concurrent use; Sync runs one at a time.
package cluster
