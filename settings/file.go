package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/braidsearch/braid/internal/atomicfile"
)

// File is the name of the file that holds an index's settings in its
// directory.
const File = "settings.json"

// Load reads the settings in the index directory dir; a missing file
// means none set.
func Load(dir string) (*Values, error) {
	data, err := os.ReadFile(filepath.Join(dir, File))
	if errors.Is(err, os.ErrNotExist) {
		return &Values{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("braid: read %s: %w", File, err)
	}
	return Parse(data, File+" in "+dir, "fix it, or delete it to go back to the default settings")
}

// Parse decodes settings kept at where (named in its errors), checking
// each value as Set would; fix says how to mend a damaged one. Unknown
// fields are refused.
func Parse(data []byte, where, fix string) (*Values, error) {
	v := &Values{}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return nil, fmt.Errorf("braid: %s is damaged (%v); %s", where, err, fix)
	}
	// Values written by hand are checked as Set checks them.
	if bad := v.check(); bad != nil {
		return nil, fmt.Errorf("braid: %s: %s %q is out of range, want %s; fix it with braid config set", where, bad.Name, bad.Value, bad.Allowed)
	}
	return v, nil
}

// Encode is v as kept in settings.json or a cluster index's metadata:
// indented JSON.
func (v *Values) Encode() ([]byte, error) { return json.MarshalIndent(v, "", "  ") }

// Save writes v to settings.json in the index directory dir, atomically.
func Save(dir string, v *Values) error {
	data, err := v.Encode()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, File), append(data, '\n'), 0)
}
