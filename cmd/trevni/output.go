package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// atomicFile is an output file that appears under its name only once it is
// complete. It is written to a file in a private temporary directory beside
// the target (so that the final rename is atomic, and so that a spill file
// of the writer can be put there too) and renamed into place by Commit,
// which then removes the directory; Abort removes the directory and all it
// holds, and leaves any existing file of that name untouched. A replaced
// file keeps its permissions; a new one gets 0666 less the umask, as with
// os.Create. When the name is a symbolic link, the file it points to is
// written, not the link, even when that file does not exist yet.
//
// With noReplace set, Commit does not replace a file that appeared under
// the name while the output was being written (another process's): it
// fails with errAppeared and leaves that file untouched.
//
// A target that exists but is not a regular file, such as /dev/null or a
// named pipe, cannot be replaced: it is written directly.
//
// Write may be called from one goroutine while Commit or Abort is called
// from another; a Write after either fails.
type atomicFile struct {
	f      *os.File
	path   string // the target
	tmpDir string // the private directory holding tmp, or ""
	tmp    string // the temporary file, or "" when writing the target directly

	noReplace bool // Commit must not replace a file that appeared meanwhile

	mu   sync.Mutex
	done bool // committed or aborted
}

// maxLinks is how many symbolic links are followed to find an output's
// target, as the system's own limit (ELOOP).
const maxLinks = 40

// resolveLinks follows path while it is a symbolic link, also when the
// last link dangles, and returns the path of the file it leads to, which
// may not exist.
func resolveLinks(path string) (string, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
	return "", fmt.Errorf("%s: cannot create: too many levels of symbolic links", path)
}

// createAtomic starts writing the file path.
func createAtomic(path string) (*atomicFile, error) {
	target, err := resolveLinks(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(target)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("%s: cannot create: is a directory", path)
	case err == nil && !fi.Mode().IsRegular():
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, err
		}
		return &atomicFile{f: f, path: target}, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	tmpDir, err := os.MkdirTemp(dir, ".trevni-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the temporary name would only confuse
		}
		return nil, fmt.Errorf("%s: cannot create: %w", path, err)
	}
	if len(base) > 200 {
		base = base[:200] // keep the temporary name within NAME_MAX
	}
	tmp := filepath.Join(tmpDir, base)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		os.RemoveAll(tmpDir)
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: cannot create: %w", path, err)
	}
	if fi != nil {
		f.Chmod(fi.Mode().Perm()) // best effort: keep the replaced file's permissions
	}
	return &atomicFile{f: f, path: target, tmpDir: tmpDir, tmp: tmp}, nil
}

// TempDir returns the private directory beside the target where other
// temporary files of the run may go, removed with it; "" when the target
// is written directly.
func (a *atomicFile) TempDir() string { return a.tmpDir }

// Name returns the file's final name.
func (a *atomicFile) Name() string { return a.path }

// Write writes to the temporary file.
func (a *atomicFile) Write(p []byte) (int, error) {
	n, err := a.f.Write(p)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		err = fmt.Errorf("%s: cannot write: %w", a.path, err)
	}
	return n, err
}

// Commit flushes the file to stable storage and renames it into place. If
// it fails, the temporary file is removed and the target left untouched.
func (a *atomicFile) Commit() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return fmt.Errorf("%s: cannot write: already committed or aborted", a.path)
	}
	a.done = true
	if a.tmp == "" {
		return a.f.Close()
	}
	err := a.f.Sync()
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
	case a.noReplace:
		err = renameNoReplace(a.tmp, a.path)
	default:
		err = os.Rename(a.tmp, a.path)
	}
	os.RemoveAll(a.tmpDir)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s: %w while this command ran: left untouched (give --force to replace it)", a.path, errAppeared)
	}
	if err != nil {
		return fmt.Errorf("%s: cannot write: %w", a.path, err)
	}
	syncDir(filepath.Dir(a.path))
	return nil
}

// Abort removes the temporary directory. It does nothing after Commit or Abort,
// so it can be deferred.
func (a *atomicFile) Abort() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return nil
	}
	a.done = true
	err := a.f.Close()
	if a.tmpDir != "" {
		if rerr := os.RemoveAll(a.tmpDir); rerr != nil {
			err = rerr
		}
	}
	return err
}

// syncDir makes a rename in dir durable, where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// output is where a command writes its result: standard output, or a file
// replaced atomically. Writes are buffered. The framework creates it
// before the command runs (app.runCommand), commits it when the run
// succeeds and aborts it otherwise; the command only writes to it.
type output struct {
	w          *bufio.Writer
	name       string      // for messages
	file       *atomicFile // nil for standard output
	unregister func()
	done       bool
	committed  []func() // run once Commit has succeeded (summaries)

	ctx    context.Context // the run's: writes fail once it is done
	app    *app
	tmpDir string // made by TempDir when file has none, or ""
	unTmp  func()
}

// createOutput opens a file argument for output: "-" or "" is standard
// output; any other name is an atomicFile, removed if the process is
// interrupted before Commit. It refuses to write over one of the
// command's inputs (the same file, however named), and over any other
// existing regular file unless --force was given.
func (e *env) createOutput(path string) (*output, error) {
	if path == "" || path == "-" {
		if err := e.checkStdout(); err != nil {
			return nil, err
		}
		return &output{w: bufio.NewWriterSize(e.stdout, 64<<10), name: displayName(path, true), unregister: func() {}, app: e.app, ctx: e.ctx}, nil
	}
	if err := e.checkOutput(path); err != nil {
		return nil, err
	}
	f, err := createAtomic(path)
	if err != nil {
		return nil, err
	}
	o := &output{w: bufio.NewWriterSize(f, 64<<10), name: path, file: f, app: e.app, ctx: e.ctx}
	// Without --force the name was free when the run began (checkOutput):
	// the commit must not replace what another process puts there.
	f.noReplace = !e.force
	o.unregister = e.app.addCleanup(func() { f.Abort() })
	return o, nil
}

// errExists is wrapped by the error of createOutput for an existing file
// when --force is not given.
var errExists = errors.New("exists")

// errAppeared is wrapped by the error of a commit without --force when a
// file was created under the output's name while the command ran.
var errAppeared = errors.New("another file was created under this name")

// checkOutput checks that path, an output file argument, may be written:
// that it is none of the command's inputs, and that it does not exist
// unless --force was given. Files that are not regular, such as
// /dev/null, are always written.
func (e *env) checkOutput(path string) error {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil // created, or written in place; createAtomic reports errors
	}
	for _, in := range e.inputs {
		var ifi fs.FileInfo
		if in == "-" {
			if f, ok := e.stdin.(*os.File); ok {
				ifi, _ = f.Stat()
			}
		} else {
			ifi, _ = os.Stat(in)
		}
		if ifi != nil && os.SameFile(fi, ifi) {
			if in == path {
				return fmt.Errorf("%s: the output is also an input: refusing to write over it", path)
			}
			return fmt.Errorf("%s: the output is the input %s: refusing to write over it", path, displayName(in, false))
		}
	}
	if !e.force {
		return fmt.Errorf("%s: %w: give --force to replace it", path, errExists)
	}
	return nil
}

// checkStdout refuses standard output when it is one of the command's
// inputs (trevni tojson g.trv >> g.trv), which the command would read
// while appending to it: the same device and inode, as GNU cat checks.
// Only a regular file is compared; a terminal, a pipe or /dev/null is
// never an input.
func (e *env) checkStdout() error {
	f, ok := e.stdout.(*os.File)
	if !ok {
		return nil
	}
	ofi, err := f.Stat()
	if err != nil || !ofi.Mode().IsRegular() {
		return nil
	}
	for _, in := range e.inputs {
		var ifi fs.FileInfo
		if in == "-" {
			if f, ok := e.stdin.(*os.File); ok {
				ifi, _ = f.Stat()
			}
		} else {
			ifi, _ = os.Stat(in)
		}
		if ifi != nil && os.SameFile(ofi, ifi) {
			return fmt.Errorf("%s: input file is output file: standard output writes to it", displayName(in, false))
		}
	}
	return nil
}

// TempDir returns a private directory for the temporary files of the run
// (a writer's spill file), removed by Commit and Abort, and by the signal
// handler: beside the output file, or under the system's temporary
// directory for standard output and files written in place.
func (o *output) TempDir() (string, error) {
	if o.file != nil && o.file.TempDir() != "" {
		return o.file.TempDir(), nil
	}
	if o.tmpDir == "" {
		dir, err := os.MkdirTemp("", "trevni-")
		if err != nil {
			return "", err
		}
		o.tmpDir = dir
		o.unTmp = o.app.addCleanup(func() { os.RemoveAll(dir) })
	}
	return o.tmpDir, nil
}

// removeTemp removes the directory made by TempDir, if any.
func (o *output) removeTemp() {
	if o.tmpDir != "" {
		o.unTmp()
		os.RemoveAll(o.tmpDir)
		o.tmpDir = ""
	}
}

// Name returns the output's name for messages.
func (o *output) Name() string { return o.name }

// Write writes p to the output's buffer. It fails once the run is
// interrupted, so that a command writing without end (a dump of a file
// claiming 2^62 rows) stops at its next write.
func (o *output) Write(p []byte) (int, error) {
	if err := o.ctx.Err(); err != nil {
		return 0, err
	}
	return o.w.Write(p)
}

// WriteString writes s to the output's buffer, as Write does.
func (o *output) WriteString(s string) (int, error) {
	if err := o.ctx.Err(); err != nil {
		return 0, err
	}
	return o.w.WriteString(s)
}

// afterCommit registers f to run once the output has been committed: a
// summary line that names the file written, or reads it back.
func (o *output) afterCommit(f func()) { o.committed = append(o.committed, f) }

// IsFile reports whether the output is a named file, not standard output.
func (o *output) IsFile() bool { return o.file != nil }

// Commit flushes the output and, for a file, renames it into place; then
// it runs the functions registered with afterCommit.
func (o *output) Commit() error {
	if o.done {
		return fmt.Errorf("%s: cannot write: already committed or aborted", o.name)
	}
	if err := o.commit(); err != nil {
		return err
	}
	for _, f := range o.committed {
		f()
	}
	return nil
}

func (o *output) commit() error {
	o.done = true
	defer o.unregister()
	defer o.removeTemp()
	err := o.w.Flush()
	if o.file == nil {
		if err != nil {
			return fmt.Errorf("%s: cannot write: %w", o.name, err)
		}
		return nil
	}
	if err != nil {
		o.file.Abort()
		return err
	}
	return o.file.Commit()
}

// Abort abandons the output: a file's temporary copy is removed; what was
// written to standard output is flushed, since it cannot be taken back.
// It does nothing after Commit or Abort, or on a nil output.
func (o *output) Abort() {
	if o == nil || o.done {
		return
	}
	o.done = true
	defer o.unregister()
	defer o.removeTemp()
	if o.file == nil {
		o.w.Flush()
		return
	}
	o.file.Abort()
}
