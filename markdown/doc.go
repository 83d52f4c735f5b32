// Package markdown extracts what ingest needs from one markdown note: title,
// frontmatter, aliases, tags, headings and links.
//
// [Parse] reads CommonMark (through goldmark) plus the note-taking dialects
// of Obsidian, SilverBullet, Dendron and Foam:
//
//   - YAML frontmatter: the file starts with a line "---" and a later line
//     "---" or "..." closes it (a UTF-8 byte order mark is skipped). Without
//     the closing line there is no frontmatter and the whole file is body.
//     When the YAML is broken the block is still skipped, Doc.Frontmatter is
//     nil and Doc.Warnings says why.
//   - [[wikilinks]], [[page#heading]], [[page#^block]], [[a|b]] and
//     ![[embeds]]. Link.Target holds the part before '|' and Link.Alt the
//     part after it: the target and the label in Obsidian's
//     [[target|label]], which braid's output follows (a broken link is
//     named by its Target). Dendron writes the label first, so the
//     resolver tries both. A "#heading" goes to
//     Link.Heading, taken from Target or, when Target has none, from Alt.
//     Prefixes such as Dendron's "dendron://vault/" and suffixes such as
//     "#h,1:#*" are kept as written.
//   - #tags, <!-- tags: a, b --> comments, [tag: a] and [tags: a, b] in
//     text, and the frontmatter "tags" key. [AddTags] writes tags into a
//     file's frontmatter or a tag comment, changing nothing else.
//   - [[wikilinks]] inside frontmatter string values (dependsOn: "[[x]]"),
//     reported as FrontmatterLink with the top-level key.
//
// Nothing inside fenced code (``` or ~~~), indented code, `code spans` or
// SilverBullet ${…} expressions (Lua, which writes query[[…]] and "[[" ..
// name .. "]]"; the expression ends at its closing brace or with its
// block) is a link or a tag. In HTML, only the text between tags is read (so
// <details>…[[x]]…</details> links to x), never the tags and their
// attributes, comments, or <script>, <style>, <pre> and <textarea> blocks;
// comments are read only for "tags:". Markdown link destinations and
// autolinks are not scanned for #tags.
//
// # Tag rule
//
// A tag is '#' at the start of a line or after whitespace or '(', followed by
// letters, digits, '_', '-', '/' and '.', where '-', '/' and '.' count only
// between other tag characters (so "#done." is "done") and at least one
// character is not a digit or '.' (so "#123" and "#1.5" are not tags). The
// dot is allowed for Dendron's hierarchical tags (#role.farmer). "# Title" is
// a heading, not a tag, and '#' inside a URL is not preceded by a space.
// Tags are deduplicated case-sensitively.
//
// # Lines
//
// Every line number is 1-based and counts lines of the original file,
// frontmatter included; a line ends at '\n', so CRLF files number the same
// as LF files, while a lone '\r' does not end a line.
//
// # Caveats
//
// Parse never panics and never returns an error; invalid UTF-8 is replaced
// by U+FFFD in the strings it returns (not in Frontmatter values, which YAML
// rejects). Wikilinks do not span lines. GFM tables are read as paragraphs, so
// a '|' in a table cell never splits a wikilink. [[x]] stays a wikilink even
// when a reference definition for x exists. Bare URLs are not links: only
// inline links and images, reference links and <autolinks> are. Markdown
// link targets keep their percent-encoding ("My%20Note.md"); deciding which
// are local files, and decoding them, is the caller's job.
//
// # Hostile files
//
// Parse takes time and memory in proportion to the file's size, whatever
// it holds. It keeps at most [MaxTags] tags, [MaxLinks] links, [MaxHeadings]
// headings and [MaxAliases] aliases per file, the first ones in document
// order, cuts titles, heading texts and link texts to [MaxText] bytes, and
// counts what it left out in Doc.Dropped. Where goldmark's time grows
// faster than the input, Parse keeps goldmark's input small enough:
//
//   - With the square of a paragraph's line count when the paragraph holds
//     many brackets or link reference definitions: a stretch of more than
//     500 lines without a blank line is parsed in pieces cut between lines
//     (never inside a code fence). A link text or emphasis that spans a cut
//     reads as two halves, and a reference definition does not apply in the
//     pieces before its own.
//   - With the square of the nesting depth of block quotes and list items:
//     past 32 container markers at the start of a line, or one past column
//     128, the rest of the line is read as text.
package markdown
