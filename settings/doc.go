// Package settings holds an index's settings: the defaults a search takes
// when it names none (vector weight, fusion, normalization, signal
// strengths, limit, candidates, reranking), whether braid serve watches
// the sources, and the record of the braid tune that chose them.
//
// Values is what an index keeps, in settings.json in its directory (Load,
// Save) or in a cluster index's metadata (Encode, Parse). A nil field
// means the built-in default (DefaultLimit, DefaultVectorWeight, ...).
// Set changes one setting by name after checking its value, as braid
// config set and the MCP configure tool do; Parse checks a file written
// by hand the same way. List describes every setting for braid config
// list; SetTuned merges what braid tune chose; Fill fills what a search
// leaves open (Search) from an index's values.
//
//	v := &settings.Values{}
//	if err := v.Set("limit", "20"); err != nil {
//		// a *RangeError, or ErrUnknown for a name braid does not have
//	}
//	err := settings.Save(dir, v)
//
// Caveats: Values is a plain struct with no locking; the engine (the root
// package's Config) holds its own lock around reading and replacing an
// index's settings. The package never imports the root package: the
// rerank_budget default depends on the engine's reranker, so List takes it
// as an argument.
package settings
