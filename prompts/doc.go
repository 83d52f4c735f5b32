// Package prompts holds the MCP prompts braid offers: message templates a
// client shows in a menu (prompts/list) and fills in (prompts/get), which
// tell an agent how to use braid's tools for a task.
//
// The built-in prompts are research_topic, find_gaps_review and
// summarize_document. A folder may add more, one per PROMPT-*.md file: the
// file PROMPT-code-review.md is the prompt code_review, its frontmatter
// gives the description and arguments, and its body is the text, with
// {{name}} placeholders for the arguments:
//
//	---
//	description: Review a file against our conventions
//	arguments:
//	  - name: file
//	    description: The file to review
//	    required: true
//	---
//	Review {{file}} against the notes tagged conventions.
//
// Without frontmatter the description is the body's first non-empty line
// and every {{placeholder}} is a required argument. A file replaces the
// built-in of the same name.
//
//	set, err := prompts.Load(dir) // err names the files left out
//	p, err := set.Get("research_topic")
//	text, err := p.Render(map[string]string{"topic": "rollout plans"})
//
// Load reads the folder each time it is called; nothing is cached, so an
// edited file shows up on the next call. Prompts need no index.
package prompts
