package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/bucket"
	"github.com/braidsearch/braid/internal/confine"
)

// ErrOutside is the error of a tool given a path outside the folders the
// server may use.
var ErrOutside = errors.New("mcpserver: path outside the allowed folders")

// outsideError is an ErrOutside whose message names the path, the allowed
// folders and the fix.
type outsideError struct{ msg string }

func (e *outsideError) Error() string        { return e.msg }
func (e *outsideError) Is(target error) bool { return target == ErrOutside }

// rootsTimeout bounds how long a tool waits for the client's roots/list
// answer; a client that does not answer declares no roots.
const rootsTimeout = 5 * time.Second

// The trust model. An agent connected to braid serve reads untrusted text
// (the notes themselves can carry instructions planted for it), so the
// server does not take its word for where it may read or write. Tools that
// take a path (index_path, add with a path, restore's output, inject_tags)
// resolve it (relative paths, "..", symbolic links) and refuse it unless it
// lies inside an allowed folder: one given with --allow (Options.Allow),
// one of the roots the client declares (roots/list, asked again after
// notifications/roots/list_changed), or a source already registered in the
// index (a file source allows just that file). Tools that write outside the
// index directory (restore, inject_tags) are offered only with
// --allow-writes. grep reads only indexed files, and the walk does not
// follow links out of a source: both are the engine's rules. An s3:// URL
// (index_path) is allowed inside a registered S3 source or an --allow
// s3://bucket[/prefix] value; client roots, file:// URIs, allow no bucket.

// CheckAllow checks Options.Allow values and returns them as the server
// wants them: folders that exist, made absolute with a leading ~/
// expanded, and s3://bucket[/prefix] URLs made canonical.
func CheckAllow(vals []string) ([]string, error) {
	var out []string
	for _, v := range vals {
		if bucket.IsURL(v) {
			u, err := bucket.ParseURL(v)
			if err != nil {
				return nil, fmt.Errorf("mcpserver: Options.Allow %s: %w", v, err)
			}
			out = append(out, u.String())
			continue
		}
		p := expandPath(v)
		if info, err := os.Stat(p); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("mcpserver: Options.Allow %s: want an existing folder or an s3://bucket[/prefix] URL", v)
		}
		out = append(out, p)
	}
	return out, nil
}

// expandPath makes p absolute, a leading ~/ standing for the user's home
// folder, as a shell (and kong's path flags) would.
func expandPath(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if u, err := user.Current(); err == nil {
			return filepath.Join(u.HomeDir, rest)
		}
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// clientRoots is what the client last said its roots were.
type clientRoots struct {
	fresh bool     // false until asked, and again after list_changed
	dirs  []string // resolved
}

// rootsChanged marks the client's roots stale: the next path check asks
// again.
func (s *Server) rootsChanged(context.Context, mcp.JSONRPCNotification) {
	s.rootsMu.Lock()
	s.roots.fresh = false
	s.rootsMu.Unlock()
}

// clientRootDirs returns the folders the client declares, asking it when
// the answer is not known. A client that declares no roots capability, or
// cannot be asked, contributes none.
func (s *Server) clientRootDirs(ctx context.Context) []string {
	sess, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	if !ok || sess.GetClientCapabilities().Roots == nil {
		return nil
	}
	s.rootsMu.Lock()
	defer s.rootsMu.Unlock()
	if s.roots.fresh {
		return s.roots.dirs
	}
	ask, cancel := context.WithTimeout(ctx, rootsTimeout)
	defer cancel()
	res, err := s.mcp.RequestRoots(ask, mcp.ListRootsRequest{Request: mcp.Request{Method: string(mcp.MethodListRoots)}})
	s.roots = clientRoots{fresh: true}
	if err != nil {
		s.log.Printf("the client declares roots but roots/list failed (%v); only --allow folders and the index's sources are allowed", err)
		return nil
	}
	for _, r := range res.Roots {
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" || u.Path == "" {
			s.log.Printf("ignoring client root %q: not a file:// URI", r.URI)
			continue
		}
		dir, err := confine.Resolve(u.Path)
		if err != nil {
			s.log.Printf("ignoring client root %q: %v", r.URI, err)
			continue
		}
		s.roots.dirs = append(s.roots.dirs, dir)
	}
	return s.roots.dirs
}

// allowedRoots lists every folder (or file) a tool's path may lie in, as
// real paths fixed when each was granted: --allow (resolved when the
// server started), the client's roots (resolved when the client declared
// them), and the registered sources this user's key vouches for, at the
// real path they were registered under (never resolved again: a source
// that a link has since replaced grants nothing, and its reads fail).
//
// A signed-in user who may write only some sources gets only those
// sources' paths (access.go); one signed in gets no client roots.
func (s *Server) allowedRoots(ctx context.Context, e *braid.Engine) ([]string, error) {
	srcs, err := s.writable(ctx, e) // access.go
	if err != nil {
		return nil, err
	}
	var list []string
	if srcs == nil {
		list = append(list, s.allow...)
		if s.grantOf(ctx) == nil {
			list = append(list, s.clientRootDirs(ctx)...)
		}
		if srcs, err = e.Sources().List(ctx); err != nil {
			return nil, err
		}
	}
	for _, src := range srcs {
		if src.Kind == braid.SourceStore || src.Kind == braid.SourceS3 || src.Usable() != nil {
			continue
		}
		list = append(list, src.Path)
	}
	return list, nil
}

// confine resolves the path a tool was given (relative paths from the
// server's working directory, "..", symbolic links) and returns it with
// the allowed root it lies in, when it lies in one and not in the index
// directory; otherwise an error naming the path as given, the roots and
// the flag that widens them. The tool then reads or writes it from that
// root's descriptor (confine.Dir), so a link swapped in after this check
// leads nowhere. The refusal never says where the path leads, nor whether
// it exists: it reads the same for a link to any file, a missing path and
// one that cannot be resolved (a link loop, a folder the server may not
// search), whose reason goes to the log.
func (s *Server) confine(ctx context.Context, e *braid.Engine, arg, path string) (real, root string, err error) {
	if err := confine.Check(path); err != nil {
		return "", "", argError(arg, "%s", strings.TrimPrefix(err.Error(), "confine: bad path: "))
	}
	real, rerr := confine.Resolve(path)
	roots, err := s.allowedRoots(ctx, e)
	if err != nil {
		return "", "", err
	}
	if rerr != nil {
		s.log.Printf("refusing %s %s: %v", arg, path, rerr)
	} else if !e.Store().InIndex(real) {
		for _, r := range roots {
			if confine.Within(r, real) {
				return real, r, nil
			}
		}
	}
	where := "none yet"
	if len(roots) > 0 {
		where = strings.Join(roots, ", ")
	}
	return "", "", &outsideError{fmt.Sprintf("%s %s is outside the folders this server may use, judged where its links lead (allowed: %s; never the index directory); the user can start braid serve with --allow DIR to allow another folder",
		arg, path, where)}
}

// confineS3 returns the s3:// URL a tool was given, made canonical, when
// it lies inside a registered S3 source or an --allow s3:// value;
// otherwise an error naming those and the flag that widens them.
func (s *Server) confineS3(ctx context.Context, e *braid.Engine, arg, raw string) (string, error) {
	u, err := bucket.ParseURL(raw)
	if err != nil {
		return "", argError(arg, "%s", strings.TrimPrefix(err.Error(), "bucket: "))
	}
	srcs, err := s.writable(ctx, e) // access.go: a user who may write only some sources gets only theirs
	if err != nil {
		return "", err
	}
	var allowed []bucket.URL
	if srcs == nil {
		allowed = append(allowed, s.allowS3...)
		if srcs, err = e.Sources().List(ctx); err != nil {
			return "", err
		}
	}
	for _, src := range srcs {
		if src.Kind != braid.SourceS3 {
			continue
		}
		if v, err := bucket.ParseURL(src.Path); err == nil {
			allowed = append(allowed, v)
		}
	}
	var names []string
	for _, a := range allowed {
		if a.Within(u) {
			return u.String(), nil
		}
		if !slices.Contains(names, a.String()) {
			names = append(names, a.String())
		}
	}
	where := "none"
	if len(names) > 0 {
		where = strings.Join(names, ", ")
	}
	return "", &outsideError{fmt.Sprintf("%s %s is outside the S3 locations this server may index (allowed: %s); the user can start braid serve with --allow s3://BUCKET[/PREFIX] to allow another",
		arg, raw, where)}
}
