package mcpserver

import (
	"context"
	"time"

	"github.com/braidsearch/braid"
)

// watchAll watches every registered source, for Options.Watch.
func (s *Server) watchAll(e *braid.Engine) {
	srcs, err := e.Sources().List()
	if err != nil {
		s.log.Printf("watch: cannot list sources: %v", err)
		return
	}
	if len(srcs) == 0 {
		s.log.Printf("watch: no sources registered yet; index_path with watch adds one")
	}
	for _, src := range srcs {
		if src.Kind == braid.SourceStore {
			continue // changed only by add, update and delete, which index it
		}
		if src.Kind == braid.SourceS3 {
			continue // a bucket sends no change notifications; index_path re-indexes it
		}
		if err := s.watch(e, src.Path); err != nil {
			s.log.Printf("watch %s: %v", src.Path, err)
		}
	}
}

// watch keeps the source at path (absolute, registered) indexed until the
// server closes. Re-indexing takes the writer slot, like index_path. A
// source already watched is left as it is.
func (s *Server) watch(e *braid.Engine, path string) error {
	if e.Capabilities().ReadOnly {
		return braid.ErrReadOnly
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if s.watching[path] {
		return nil
	}
	s.watching[path] = true
	s.watchers.Add(1)
	ctx := s.watchCtx
	go func() {
		defer s.watchers.Done()
		s.log.Printf("watching %s", path)
		err := e.Watch(ctx, []string{path}, &braid.WatchOptions{
			Serialize: s.write,
			Warn:      func(err error) { s.log.Printf("watch %s: %v", path, err) },
			Indexed: func(src *braid.Source, sum *braid.Summary, err error) {
				switch {
				case err != nil:
					s.log.Printf("watch: re-index %s: %v", src.Path, err)
				case sum.Added+sum.Updated+sum.Removed > 0 || len(sum.Errors) > 0:
					s.log.Printf("watch: re-indexed %s in %v: %d added, %d updated, %d removed, %d errors",
						src.Path, time.Duration(sum.TookMS)*time.Millisecond, sum.Added, sum.Updated, sum.Removed, len(sum.Errors))
				}
			},
		})
		if err != nil && ctx.Err() == nil {
			s.log.Printf("watch %s stopped: %v", path, err)
		}
		s.mu.Lock()
		if ctx == s.watchCtx { // else unwatchAll has forgotten it already
			delete(s.watching, path)
		}
		s.mu.Unlock()
	}()
	return nil
}

// unwatchAll stops every watch (the watch setting turned off).
func (s *Server) unwatchAll() {
	s.mu.Lock()
	stop := s.stopAll
	s.watchCtx, s.stopAll = context.WithCancel(context.Background())
	s.watching = map[string]bool{}
	s.mu.Unlock()
	stop()
}

// watchSetting says whether the index's settings ask for watching.
func watchSetting(e *braid.Engine) bool {
	w := e.Config().Values().Watch
	return w != nil && *w
}
