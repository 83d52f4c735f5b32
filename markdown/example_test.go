package markdown_test

import (
	"fmt"

	"github.com/braidsearch/braid/markdown"
)

func ExampleParse() {
	src := []byte(`---
title: Install guide
tags: [setup, linux]
dependsOn: "[[ADR/007 packaging]]"
---
# Install

Read [[Requirements#Disk|the requirements]] first, then see
[the FAQ](faq.md). Dendron style: [[label|ops.deploy#steps]]. #howto

` + "```sh\n[[not a link]] #not-a-tag\n```\n")

	doc := markdown.Parse("install.md", src)
	fmt.Println("title:", doc.Title)
	fmt.Println("tags:", doc.Tags)
	fmt.Println("body starts at line", doc.BodyStart)
	for _, h := range doc.Headings {
		fmt.Printf("heading %d %q at line %d\n", h.Level, h.Text, h.Line)
	}
	for _, l := range doc.Links {
		fmt.Printf("%s line %d: target=%q alt=%q heading=%q text=%q key=%q\n",
			l.Kind, l.Line, l.Target, l.Alt, l.Heading, l.Text, l.Key)
	}
	// Output:
	// title: Install guide
	// tags: [setup linux howto]
	// body starts at line 6
	// heading 1 "Install" at line 6
	// frontmatter line 4: target="ADR/007 packaging" alt="" heading="" text="" key="dependsOn"
	// wikilink line 8: target="Requirements" alt="the requirements" heading="Disk" text="" key=""
	// markdown line 9: target="faq.md" alt="" heading="" text="the FAQ" key=""
	// wikilink line 9: target="label" alt="ops.deploy" heading="steps" text="" key=""
}
