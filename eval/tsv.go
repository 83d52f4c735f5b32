package eval

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// LoadTSV reads a query set kept in one file, for a corpus of files: after
// '#' comment lines and a header line, each line is
//
//	id<TAB>split<TAB>query<TAB>PATH=GRADE,PATH=GRADE,...
//
// where PATH is a file's path relative to the corpus directory (what a
// search result's path is when that directory is indexed as one source)
// and GRADE a relevance (2 the answer, 1 useful). Only the queries of
// split are kept; split "all" keeps every query.
func LoadTSV(path, split string) (*Collection, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	defer f.Close()
	c := &Collection{Qrels: Qrels{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	header := false
	splits := map[string]int{}
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if !header {
			header = true
			if len(cols) == 4 && cols[0] == "id" {
				continue
			}
			return nil, fmt.Errorf("eval: %s:%d: want the header id<TAB>split<TAB>query<TAB>relevant", path, n)
		}
		if len(cols) != 4 {
			return nil, fmt.Errorf("eval: %s:%d: %d columns, want 4 (id, split, query, relevant)", path, n, len(cols))
		}
		id, sp, text := cols[0], cols[1], strings.TrimSpace(cols[2])
		if _, dup := c.Qrels[id]; dup {
			return nil, fmt.Errorf("eval: %s:%d: query id %s appears twice", path, n, id)
		}
		splits[sp]++
		if split != "all" && sp != split {
			continue
		}
		rel := map[string]int{}
		for _, item := range strings.Split(cols[3], ",") {
			p, g, ok := strings.Cut(strings.TrimSpace(item), "=")
			grade, err := strconv.Atoi(g)
			if !ok || err != nil || p == "" || grade < 0 {
				return nil, fmt.Errorf("eval: %s:%d: relevant item %q, want PATH=GRADE", path, n, item)
			}
			rel[p] = grade
		}
		if text == "" {
			return nil, fmt.Errorf("eval: %s:%d: query %s is empty", path, n, id)
		}
		c.Queries = append(c.Queries, Query{ID: id, Text: text})
		c.Qrels[id] = rel
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: read %s: %w", path, err)
	}
	if len(c.Queries) == 0 {
		var have []string
		for s, k := range splits {
			have = append(have, fmt.Sprintf("%s (%d)", s, k))
		}
		return nil, fmt.Errorf("eval: %s has no query in the %s split (it has %s; \"all\" takes every one)", path, split, strings.Join(have, ", "))
	}
	return c, nil
}
