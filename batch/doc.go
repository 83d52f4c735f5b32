// Package batch answers a file of JSON lines on a pool of workers: it reads
// the lines, hands each to a function that answers it, and writes each
// answer as one JSON line, in input order, whatever order the workers
// finish in.
//
// A panic while answering a line becomes that line's answer (an error
// answer, counted as failed) and the other lines go on; Options.Panicked
// hears of it. Run stops early, with the answers so far written, when the
// input cannot be read (a line over MaxLine), the output cannot be written
// or the context ends.
//
// Run knows nothing of what a line asks. Decode reads a line of a search
// batch as a Query (the root package's SearchOptions by their JSON names),
// refusing unknown fields, trailing data and negative limits; the root
// package's Batch turns it into search options and searches. The package
// never imports the root package.
//
//	sum, err := batch.Run(ctx, in, out, batch.Options{Workers: 4},
//		func(ctx context.Context, line int, text []byte) (any, bool) {
//			return map[string]int{"line": line, "bytes": len(text)}, false
//		}, nil)
package batch
