// Package evidence packs search hits into the evidence for a question,
// the work behind Engine.Ask: it reads each hit's chunk and citation,
// leaves out lines a better-ranked passage of the same document already
// holds and near-duplicates of a better passage anywhere (word-trigram
// Jaccard similarity of 0.8 or more; their tags are kept as the better
// passage's duplicates), and fills a token budget in rank order, cutting a
// chunk that does not fit whole to the lines around the first one that
// holds a highlighted word. Each passage carries a citation tag,
// [Title](path#L12-L30), rewritten for the lines it keeps.
//
// The engine searches, turns its hits into Hits and hands Fill a Reader
// with its chunk and citation reads:
//
//	budget, err := evidence.Budget(opt.Budget) // 0 means DefaultBudget
//	p, err := evidence.Fill(ctx, hits, budget, evidence.Reader{Chunk: chunkByID, Cite: notes.Cite})
//
// braid users reach it as Engine.Ask; the braid package re-exports Pack
// and the budgets.
//
// Caveats: tokens are counted with chunk.Count, an estimate of a BERT
// WordPiece tokenizer, and only the passages' text and tags count, not the
// JSON around them. A chunk whose text does not span exactly its lines
// (StartLine..EndLine) is kept whole or not at all. The package never
// imports the root package.
package evidence
