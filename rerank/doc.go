// Package rerank reorders the head of a fused result list with a
// cross-encoder, within a time budget.
//
// A Reranker takes the caller's candidates in fused order, cuts each
// passage to the window of Options.Window tokens that holds most of the
// query's terms (see Window), and scores a prefix of at most Options.Top
// (query, window) pairs with a Scorer, normally a *model.CrossEncoder.
// Scores are cached per (query, window) so a repeated query costs nothing.
// With a Budget it scores only as many pairs as its measured throughput
// says fit, always at least the first 8; the caller keeps the fused order
// for the rest.
//
//	c, err := model.LoadCrossEncoder(dir, model.DefaultCrossEncoder(), model.Config{})
//	...
//	r := rerank.New(c, rerank.Options{Budget: 50 * time.Millisecond})
//	out, err := r.Rerank(ctx, query, passages)
//	// sort passages[:out.Reranked] by out.Scores, keep the rest as they are.
//
// Caveats. Scores are raw logits: they order passages of one query, but
// mean nothing across queries or models, and they are not probabilities.
// The budget counts model time as estimated from byte lengths (see
// Reranker); windowing and cache lookups are not counted, and the first
// calibration batch may overrun a small budget. The cache is in memory,
// per Reranker, and keyed by a 64-bit hash of the pair.
package rerank
