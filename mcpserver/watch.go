package mcpserver

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/braidsearch/braid"
)

// watchAll watches every registered source, for Options.Watch.
func (s *Server) watchAll(e *braid.Engine) {
	srcs, err := e.Sources().List(s.watchCtx)
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
// server closes or unwatch stops it. Re-indexing takes the writer slot,
// like index_path. A source already watched is left as it is.
func (s *Server) watch(e *braid.Engine, path string) error {
	if e.Capabilities().ReadOnly {
		return braid.ErrReadOnly
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if s.watching[path] != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(s.watchCtx)
	run := &watchRun{cancel: cancel}
	s.watching[path] = run
	s.watchers.Add(1)
	go func() {
		defer s.watchers.Done()
		defer cancel()
		var ready atomic.Bool
		err := e.Watch(ctx, []string{path}, &braid.WatchOptions{
			Serialize: s.write,
			Ready: func() {
				ready.Store(true)
				s.log.Printf("watching %s", path)
			},
			Warn: func(err error) { s.log.Printf("watch %s: %v", path, err) },
			Indexed: func(src *braid.Source, sum *braid.Summary, err error) {
				switch {
				case err != nil:
					s.log.Printf("watch: re-index %s: %v", src.Path, err)
				case sum.Added+sum.Updated+sum.Removed > 0 || len(sum.Errors) > 0:
					s.log.Printf("watch: re-indexed %s in %v (%s): %d added, %d updated, %d removed, %d errors",
						src.Path, time.Duration(sum.TookMS)*time.Millisecond, sum.Looked(), sum.Added, sum.Updated, sum.Removed, len(sum.Errors))
				}
			},
		})
		switch {
		case err != nil && !ready.Load():
			// An untrusted or moved source: Watch refused it, once, with the fix.
			s.log.Printf("watch %s: %v", path, err)
		case err != nil && ctx.Err() == nil:
			s.log.Printf("watch %s stopped: %v", path, err)
		}
		s.mu.Lock()
		if s.watching[path] == run { // else unwatch forgot it, or a new watch replaced it
			delete(s.watching, path)
		}
		s.mu.Unlock()
	}()
	return nil
}

// watchRun is one watch under way.
type watchRun struct{ cancel context.CancelFunc }

// watched says whether the source at path is being watched.
func (s *Server) watched(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watching[path] != nil
}

// unwatch stops watching the source at path, if it is watched.
func (s *Server) unwatch(path string) {
	s.mu.Lock()
	run := s.watching[path]
	delete(s.watching, path)
	s.mu.Unlock()
	if run != nil {
		run.cancel()
		s.log.Printf("stopped watching %s", path)
	}
}

// unwatchAll stops every watch (the watch setting turned off); the
// sessions that watch their sets are watched again.
func (s *Server) unwatchAll(e *braid.Engine) {
	s.mu.Lock()
	stop := s.stopAll
	s.watchCtx, s.stopAll = context.WithCancel(context.Background())
	s.watching = map[string]*watchRun{}
	s.mu.Unlock()
	stop()
	s.sessMu.Lock()
	s.sessionWatching = map[string]bool{}
	s.sessMu.Unlock()
	s.syncSessionWatches(e)
}

// syncSessionWatches makes the watches follow the sessions: the sources
// holding the documents of each session that watches its set are
// watched, and those watched for sessions alone that no session needs
// any more are no longer (unless every source is watched: the watch
// setting, Options.Watch).
func (s *Server) syncSessionWatches(e *braid.Engine) {
	if e.Capabilities().ReadOnly {
		return
	}
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	wanted, err := s.sessionSources(e)
	if err != nil {
		s.log.Printf("watch: cannot read the sessions: %v", err)
		return
	}
	for path := range wanted {
		if s.watched(path) {
			continue // by every-source watching, index_path's watch, or an earlier sync
		}
		if err := s.watch(e, path); err != nil {
			s.log.Printf("watch %s: %v", path, err)
			continue
		}
		s.sessionWatching[path] = true
	}
	all := s.opt.Watch || watchSetting(e)
	for path := range s.sessionWatching {
		if !wanted[path] {
			delete(s.sessionWatching, path)
			if !all {
				s.unwatch(path)
			}
		}
	}
}

// sessionSources are the paths of the sources the watching sessions'
// sets are in: folders and files, which send change notifications.
func (s *Server) sessionSources(e *braid.Engine) (map[string]bool, error) {
	list, err := e.Sources().Sessions().List()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, se := range list {
		if !se.Watch {
			continue
		}
		for _, p := range s.sessionWatched(e, se.Name) {
			out[p] = true
		}
	}
	return out, nil
}

// sessionWatched are the paths of the sources a watch of the named
// session's set follows.
func (s *Server) sessionWatched(e *braid.Engine, name string) []string {
	srcs, err := e.Sources().Sessions().Sources(name)
	if err != nil {
		s.log.Printf("watch: session %s: %v", name, err)
		return []string{}
	}
	out := []string{}
	for _, src := range srcs {
		if src.Kind == braid.SourceStore || src.Kind == braid.SourceS3 || src.Usable() != nil {
			continue
		}
		out = append(out, src.Path)
	}
	return out
}

// sessionNameFor names the session the watch tool creates for a root:
// proj-FOLDER, its characters reduced to those a name allows.
func sessionNameFor(root string) string {
	base := []byte(filepath.Base(filepath.Clean(root)))
	for i, c := range base {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			base[i] = '-'
		}
	}
	name := "proj-" + string(base)
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

// watchSetting says whether the index's settings ask for watching.
func watchSetting(e *braid.Engine) bool {
	w := e.Config().Values().Watch
	return w != nil && *w
}
