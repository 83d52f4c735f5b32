package index

import (
	"testing"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"1048576", 1048576}, {"512KB", 512000}, {"20MB", 20e6}, {"1GiB", 1 << 30}, {"8KiB", 8 << 10},
		{"8k", 8 << 10}, {" 1.5 mb ", 1.5e6}, {"2G", 2 << 30}, {"100B", 100},
	}
	for _, tc := range tests {
		if got, err := ParseSize(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "0", "-5MB", "MB", "lots"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q): no error", bad)
		}
	}
	if got := FormatBytes(1500000); got != "1.5 MB" {
		t.Errorf("FormatBytes(1500000) = %q", got)
	}
}
