package settings_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/braidsearch/braid/settings"
)

// braid config's table lines its columns up by the widest cell: the
// value and the help start at the same column on every row, with
// query_instruction and a long tuned value among them (issue 35, point 4d).
func TestTableAligned(t *testing.T) {
	v := &settings.Values{}
	for name, value := range map[string]string{"vector_weight": "0.612345", "query_instruction": "false"} {
		if err := v.Set(name, value); err != nil {
			t.Fatal(err)
		}
	}
	list := v.List(settings.DefaultRerankBudget)
	lines := strings.Split(strings.TrimSuffix(settings.Table(list), "\n"), "\n")
	if len(lines) != len(list) {
		t.Fatalf("%d lines for %d settings:\n%s", len(lines), len(list), settings.Table(list))
	}
	valueCol, helpCol := -1, -1
	for i, line := range lines {
		s := list[i]
		value := strings.Index(line, "  "+s.Value+" ") + 2
		help := strings.Index(line, s.Help)
		if value < 2 || help < 0 {
			t.Fatalf("line %q lacks %q's value or help", line, s.Name)
		}
		value, help = utf8.RuneCountInString(line[:value]), utf8.RuneCountInString(line[:help])
		if i == 0 {
			valueCol, helpCol = value, help
		}
		if value != valueCol || help != helpCol {
			t.Errorf("%s: value at column %d, help at %d; want %d and %d as on the first line:\n%s",
				s.Name, value, help, valueCol, helpCol, strings.Join(lines, "\n"))
		}
		if mark := line[:1]; (mark == "*") != s.Set {
			t.Errorf("%s: mark %q, set %v", s.Name, mark, s.Set)
		}
	}
}
