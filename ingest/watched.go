package ingest

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/braidsearch/braid/bucket"
	"github.com/braidsearch/braid/index"
)

// Watched picks the sources a watch follows among the registered ones
// (all): those paths names by their path, as given to an index run, or
// with no paths every one that can be watched. The document store changes
// only through its own Add, Update and Delete, which index it themselves,
// and a bucket has no change notifications to follow: neither is watched.
// Nor is a source that is not usable (index.Source.Usable: a record this
// user did not make, or a folder that now passes through a symbolic
// link): a watch would walk and watch wherever its path leads. Each one
// left out is said once through warn (nil discards it), with its fix;
// when that leaves nothing to watch, the error is theirs, joined.
func Watched(all []*index.Source, paths []string, warn func(error)) ([]*index.Source, error) {
	registered := len(all)
	all = slices.DeleteFunc(slices.Clone(all), func(s *index.Source) bool { return s.Kind == index.SourceStore || s.Kind == index.SourceS3 })
	var srcs []*index.Source
	if len(paths) == 0 {
		switch {
		case len(all) == 0 && registered > 0:
			return nil, fmt.Errorf("%w: no source here can be watched (S3 sources and the document store are not); run braid index to pick up changes", index.ErrNotFound)
		case len(all) == 0:
			return nil, fmt.Errorf("%w: no sources registered yet; run braid index PATH", index.ErrNotFound)
		}
		srcs = all
	}
	for _, p := range paths {
		if bucket.IsURL(p) {
			return nil, fmt.Errorf("%w: %s: S3 sources cannot be watched; run braid index again to pick up changes in the bucket", index.ErrBadOption, p)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("index: %s: %w", p, err)
		}
		i := slices.IndexFunc(all, func(s *index.Source) bool { return s.Path == abs })
		if i < 0 {
			return nil, fmt.Errorf("%w: no source at %s; index it before watching it", index.ErrNotFound, abs)
		}
		srcs = append(srcs, all[i])
	}
	var usable []*index.Source
	var refused []error
	for _, s := range srcs {
		if err := s.Usable(); err != nil {
			refused = append(refused, fmt.Errorf("not watched: %w", err))
			continue
		}
		usable = append(usable, s)
	}
	if len(usable) == 0 {
		return nil, errors.Join(refused...)
	}
	if warn != nil {
		for _, err := range refused {
			warn(err)
		}
	}
	return usable, nil
}
