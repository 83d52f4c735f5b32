package query

import (
	"fmt"
	"regexp"
	"strings"
)

// GlobRegexp turns a path glob into an anchored-by-construction regular
// expression body (bleve's regexp queries match whole terms; wrap it in ^…$
// for Go's regexp). `**` matches across directories, `*` and `?` within one,
// `[…]` is a character class. A glob with no slash matches the base name at
// any depth, as in ripgrep's -g and .gitignore.
func GlobRegexp(glob string) (string, error) {
	var b strings.Builder
	g := strings.TrimPrefix(glob, "./")
	if !strings.Contains(strings.TrimSuffix(g, "/"), "/") {
		b.WriteString("(.*/)?")
	}
	g = strings.TrimPrefix(g, "/")
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch c {
		case '*':
			if i+1 < len(g) && g[i+1] == '*' {
				i++
				if i+1 < len(g) && g[i+1] == '/' {
					i++
					b.WriteString("(.*/)?")
				} else {
					b.WriteString(".*")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		case '[':
			end := strings.IndexByte(g[i+1:], ']')
			if end < 0 {
				return "", fmt.Errorf("index: glob %q has an unclosed '['", glob)
			}
			class := g[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += end + 1
		case '\\':
			if i+1 < len(g) {
				i++
				b.WriteString(regexp.QuoteMeta(string(g[i])))
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	s := strings.TrimSuffix(b.String(), "/")
	if _, err := regexp.Compile("^" + s + "$"); err != nil {
		return "", fmt.Errorf("index: glob %q: %v", glob, err)
	}
	return s, nil
}
