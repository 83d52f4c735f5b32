package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/internal/atomicfile"
	"github.com/braidsearch/braid/internal/confine"
)

// File is the name of the file that holds an index's settings in its
// directory.
const File = indexdir.SettingsFile

// maxFile is the largest settings.json read: a few hundred bytes is usual.
const maxFile = 1 << 20

// Load reads the settings in the index directory dir; a missing file
// means none set. The file is read as confine.ReadConfig reads: a
// symbolic link, a FIFO, a device or a file over 1 MiB is refused, never
// followed, waited on or read whole.
func Load(dir string) (*Values, error) {
	p := filepath.Join(dir, File)
	data, err := confine.ReadConfig(p, maxFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Values{}, nil
	case errors.Is(err, confine.ErrNotRegular) || errors.Is(err, confine.ErrTooLarge):
		return nil, fmt.Errorf("read %s: %w; settings are read from a regular file of at most 1 MiB, never through a link: delete it to go back to the default settings", File, err)
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", File, err)
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
		return nil, fmt.Errorf("%s is damaged (%v); %s", where, err, fix)
	}
	// Values written by hand are checked as Set checks them.
	if bad := v.check(); bad != nil {
		return nil, fmt.Errorf("%s: %s %q is out of range, want %s; fix it with braid config set", where, bad.Name, bad.Value, bad.Allowed)
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
