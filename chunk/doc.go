// Package chunk cuts files into pieces sized for embedding models and
// lexical indexing, each with its exact line range in the original file.
//
// [Markdown] is heading-aware: it cuts the body of a note (after its
// frontmatter, see markdown.Doc.BodyStart) into sections at every heading,
// keeps a section that fits the token budget as one chunk, and splits a
// larger one at blank lines, then line ends, then between words, with a small
// overlap between consecutive pieces. Fenced code blocks are never split.
// Every chunk carries its HeadingPath (["Install", "Linux"]), which callers
// can prepend to the text they embed.
//
// [Text] does the same for plain text and source code without any heading
// or fence logic.
//
// Sizes are measured with [Count], a fast estimate of a BERT WordPiece token
// count, calibrated on the test vaults (see Count for the rule and its
// error). Leave room in the budget for the model's special tokens, any
// prefix the embedder adds (heading path, query instruction) and the
// estimate's error: text full of hashes and IDs is under-counted.
//
//	doc := markdown.Parse("install.md", src)
//	for _, c := range chunk.Markdown(src, doc, chunk.Options{}) {
//		fmt.Println(c.HeadingPath, c.StartLine, c.EndLine, c.Tokens)
//	}
//
// [ID] names a chunk of a document version (DOC#HASH.N) and [DocID] reads
// the document id back; the index, the lexical index and ranking share them.
//
// # Guarantees
//
//   - Chunks come in file order; StartLine <= EndLine, both within the file,
//     and Text is never empty.
//   - Every non-blank line of the body is in at least one chunk.
//   - Tokens <= MaxTokens, except for a chunk holding a fenced code block
//     larger than the budget (with at most its section's heading and a
//     lead-in line or two before it).
//   - No chunk spans two sections; small sections are not merged.
//   - Markdown and Text never panic and run in time linear in the input
//     size times the budget.
//
// # Caveats
//
// Lines end at '\n'; a trailing '\r' is dropped from chunk text. Fences are
// found line by line (any indentation, after blockquote markers); an
// unclosed fence runs to the end of its section. Text keeps bytes that are
// not valid UTF-8 as they are. HeadingPath slices are shared between the
// chunks of one section: do not modify them.
package chunk
