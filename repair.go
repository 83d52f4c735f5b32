package braid

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/braidsearch/braid/doctor"
)

// CheckFiles looks at the files of the index in dir without opening it as
// an Engine: VERSION is readable, meta.db is a sound bbolt file, the lexical
// index opens, and every vectors-*.hnsw file decodes with a good checksum.
// Each failed check names the file and the fix. A directory without
// meta.db gives no checks (there is no index to check). See doctor.CheckFiles.
func CheckFiles(dir string) ([]Check, error) { return doctor.CheckFiles(dir) }

// Repair fixes what CheckFiles finds and can be fixed from the index
// itself (see doctor.Repair) and returns what it did, one line per action.
// A directory without meta.db is ErrNoIndex, or a corrupt index when what
// was built from meta.db remains.
func Repair(dir string) ([]string, error) {
	if err := doctor.StoreMissing(dir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, doctor.StoreFile)); err != nil {
		return nil, fmt.Errorf("%w (looked in %s)", ErrNoIndex, dir)
	}
	return doctor.Repair(dir)
}
