package chunk_test

import (
	"fmt"

	"github.com/braidsearch/braid/chunk"
	"github.com/braidsearch/braid/markdown"
)

func ExampleMarkdown() {
	src := []byte(`---
title: Install
---
Intro paragraph.

# Install
Download the archive.

## Linux
Unpack it:

` + "```sh\ntar xf braid.tgz\n```" + `

## Mac
Use Homebrew.
`)
	doc := markdown.Parse("install.md", src)
	for _, c := range chunk.Markdown(src, doc, chunk.Options{}) {
		fmt.Printf("%q lines %d-%d, %d tokens\n", c.HeadingPath, c.StartLine, c.EndLine, c.Tokens)
	}
	// Output:
	// [] lines 4-4, 4 tokens
	// ["Install"] lines 6-7, 9 tokens
	// ["Install" "Linux"] lines 9-14, 18 tokens
	// ["Install" "Mac"] lines 16-17, 7 tokens
}

func ExampleText() {
	src := []byte("alpha beta gamma delta\nepsilon zeta eta theta\niota kappa lambda mu\n")
	for _, c := range chunk.Text(src, chunk.Options{MaxTokens: 10, Overlap: 5}) {
		fmt.Printf("lines %d-%d: %q\n", c.StartLine, c.EndLine, c.Text)
	}
	// Output:
	// lines 1-2: "alpha beta gamma delta\nepsilon zeta eta theta"
	// lines 2-3: "epsilon zeta eta theta\niota kappa lambda mu"
}

func ExampleCount() {
	fmt.Println(chunk.Count("Hybrid search: BM25 + vectors, fused."))
	// Hybrid search : BM25 + vectors , fused . -> "BM25" is 2 and "vectors" is 2.
	// Output: 11
}
