package prompts

import (
	"fmt"
	"strconv"
)

// Builtin returns the prompts braid offers without a prompts folder, in
// name order. Each is written for an agent that has braid's MCP tools.
func Builtin() []Prompt {
	return []Prompt{
		{
			Name:  "find_gaps_review",
			Title: "Review missing links",
			Description: "Find notes that are about the same thing but do not link to each other (find_gaps), read each " +
				"pair and propose the links to add, the notes to merge and the pairs to leave alone.",
			Arguments: []Argument{{Name: "limit", Description: "How many pairs to review, 1..100. Default 10.",
				Default: "10", check: intIn(1, 100)}},
			Body: findGapsReview,
		},
		{
			Name:  "research_topic",
			Title: "Research a topic",
			Description: "Research a topic in the indexed notes: search, read the best hits in context, follow their links, " +
				"and answer with citations (paths and chunk ids) for every claim.",
			Arguments: []Argument{{Name: "topic", Description: "The topic or question to research, in words.", Required: true}},
			Body:      researchTopic,
		},
		{
			Name:  "summarize_document",
			Title: "Summarize a document",
			Description: "Summarize one indexed document: what it is for, its main points in the order of its headings, " +
				"and the documents a reader needs next, citing sections by heading and line.",
			Arguments: []Argument{{Name: "id", Description: "The document: its id, its path relative to its source, " +
				"its absolute path or its exact title.", Required: true}},
			Body: summarizeDocument,
		},
	}
}

// intIn accepts a whole number from lo to hi.
func intIn(lo, hi int) func(string) error {
	return func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("%q is not a whole number from %d to %d", v, lo, hi)
		}
		return nil
	}
}

const researchTopic = `Research this topic in the knowledge base that the braid tools search, and answer from what the notes say:

{{topic}}

Work in this order:

1. Search. Call search with the topic in words (limit 10). If the hits are thin or off the point, search again with other words: a synonym, a narrower phrase, or a name the first hits mention. Use search_keyword for exact names, identifiers and error messages, and grep for a pattern. If a search's warning says it ran on keywords alone, phrase queries with the words the notes would use.
2. Read the best hits in context. For the 3 to 6 most promising hits, call read_around with the hit's chunk_id to read the passage and its neighbours; call read_node_content with the hit's id when you need the whole note. Skip hits that only mention the topic in passing.
3. Follow the links. Call explore_links on the most relevant documents, once forward (the notes they rely on) and once with reverse: true (the notes that point to them, such as later decisions or follow-ups). Read the linked notes that bear on the topic; a newer note may correct an older one.
4. Answer. Lead with the direct answer, then the supporting detail. Cite every claim with the document path and chunk_id it came from, like (notes/design.md, 3f2a9c1e04b7#a41c09d2.3). Say where notes disagree, look out of date, or say nothing: do not fill a gap from general knowledge without saying so. End with the documents worth reading in full.

When an answer is cut at the output limit, its last line names a scratchpad id: read the rest with scratchpad_read.`

const findGapsReview = `Review this knowledge base for missing links between notes, using the braid tools.

1. Call find_gaps with limit {{limit}}. Each gap is a pair of notes (a and b) that are similar but not linked either way, with their similarity, the words they share (terms), a suggested link (suggest: its type, from and to) and the reason it is listed. Note the method: "lexical" means similarity by shared words, which finds more false pairs than "embeddings".
2. For each pair, read both notes: read_around on a chunk that uses the shared terms, or read_node_content for short notes. Call explore_links on each if you need to see what they already link to.
3. Decide one of:
   - link: the notes are related and a reader of one would want the other. Say which note gets the link, where (under which heading), and the exact text to add, such as a [[wikilink]] sentence or a related: entry in its frontmatter.
   - merge: they say the same thing; say which one should absorb the other and what would be lost.
   - leave: the overlap is incidental (shared boilerplate, common words, a template); say why.
4. Report a table with one row per pair: the two paths, the similarity, your decision, the reason in one line, and the link text to add. Then list the notes that came up in several pairs: they may be hubs that want a summary note.

Do not edit any file unless asked to; this is a proposal for a person to review.`

const summarizeDocument = `Summarize one document from the knowledge base that the braid tools search.

The document: {{id}}

1. Call get_document with document_id set to the document above. It returns the title, tags, headings with line numbers, outgoing links and the current content. If it is not found, call search with the name and use the id of the best hit; if several could be meant, say which you chose. If the content is cut at the output limit, read the rest with scratchpad_read.
2. Write the summary:
   - one or two sentences on what the document is and what it is for;
   - its main points in the order of its headings, keeping names, numbers, dates and decisions exact;
   - open questions, to-dos and anything marked as outdated or superseded.
   Cite sections by heading and line range, like (## Rollout, lines 40-58).
3. Call explore_links with the document's id, and again with reverse: true, and list the linked documents a reader would need next, each with one line on why.

Summarize what the document says; do not add facts it does not contain.`
