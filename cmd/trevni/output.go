package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
)

// atomicFile is an output file that appears under its name only once it is
// complete. It is written to a temporary file in the same directory (so that
// the final rename is atomic) and renamed into place by Commit; Abort
// removes the temporary file and leaves any existing file of that name
// untouched. A replaced file keeps its permissions; a new one gets 0666 less
// the umask, as with os.Create. When the name is a symbolic link, the file it
// points to is replaced, not the link.
//
// A target that exists but is not a regular file, such as /dev/null or a
// named pipe, cannot be replaced: it is written directly.
//
// Write may be called from one goroutine while Commit or Abort is called
// from another; a Write after either fails.
type atomicFile struct {
	f    *os.File
	path string // the target
	tmp  string // the temporary file, or "" when writing the target directly

	mu   sync.Mutex
	done bool // committed or aborted
}

// createAtomic starts writing the file path.
func createAtomic(path string) (*atomicFile, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("create %s: is a directory", path)
	case err == nil && !fi.Mode().IsRegular():
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, err
		}
		return &atomicFile{f: f, path: path}, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	target := path
	if err == nil {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			target = real
		}
	}
	dir, base := filepath.Split(target)
	if len(base) > 200 {
		base = base[:200] // keep the temporary name within NAME_MAX
	}
	for range 100 {
		tmp := filepath.Join(dir, fmt.Sprintf(".%s.%08x.tmp", base, rand.Uint32()))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the temporary name would only confuse
			}
			return nil, fmt.Errorf("create %s: %w", path, err)
		}
		if fi != nil {
			f.Chmod(fi.Mode().Perm()) // best effort: keep the replaced file's permissions
		}
		return &atomicFile{f: f, path: target, tmp: tmp}, nil
	}
	return nil, fmt.Errorf("create %s: no free temporary name in %s", path, dir)
}

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
		err = fmt.Errorf("write %s: %w", a.path, err)
	}
	return n, err
}

// Commit flushes the file to stable storage and renames it into place. If
// it fails, the temporary file is removed and the target left untouched.
func (a *atomicFile) Commit() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return fmt.Errorf("write %s: already committed or aborted", a.path)
	}
	a.done = true
	if a.tmp == "" {
		return a.f.Close()
	}
	err := a.f.Sync()
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.tmp, a.path)
	}
	if err != nil {
		os.Remove(a.tmp)
		return fmt.Errorf("write %s: %w", a.path, err)
	}
	syncDir(filepath.Dir(a.path))
	return nil
}

// Abort removes the temporary file. It does nothing after Commit or Abort,
// so it can be deferred.
func (a *atomicFile) Abort() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return nil
	}
	a.done = true
	err := a.f.Close()
	if a.tmp != "" {
		if rerr := os.Remove(a.tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
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
// replaced atomically. Writes are buffered. The command must call Commit on
// success and should defer Abort, which does nothing after Commit.
type output struct {
	w          *bufio.Writer
	name       string      // for messages
	file       *atomicFile // nil for standard output
	unregister func()
	done       bool
}

// createOutput opens a file argument for output: "-" or "" is standard
// output; any other name is an atomicFile, removed if the process is
// interrupted before Commit.
func (e *env) createOutput(path string) (*output, error) {
	if path == "" || path == "-" {
		return &output{w: bufio.NewWriterSize(e.stdout, 64<<10), name: displayName(path, true), unregister: func() {}}, nil
	}
	f, err := createAtomic(path)
	if err != nil {
		return nil, err
	}
	o := &output{w: bufio.NewWriterSize(f, 64<<10), name: path, file: f}
	o.unregister = e.app.addCleanup(func() { f.Abort() })
	return o, nil
}

// Name returns the output's name for messages.
func (o *output) Name() string { return o.name }

// Write writes p to the output's buffer.
func (o *output) Write(p []byte) (int, error) { return o.w.Write(p) }

// WriteString writes s to the output's buffer.
func (o *output) WriteString(s string) (int, error) { return o.w.WriteString(s) }

// Commit flushes the output and, for a file, renames it into place.
func (o *output) Commit() error {
	if o.done {
		return fmt.Errorf("write %s: already committed or aborted", o.name)
	}
	o.done = true
	defer o.unregister()
	err := o.w.Flush()
	if o.file == nil {
		if err != nil {
			return fmt.Errorf("write %s: %w", o.name, err)
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
func (o *output) Abort() {
	if o.done {
		return
	}
	o.done = true
	defer o.unregister()
	if o.file == nil {
		o.w.Flush()
		return
	}
	o.file.Abort()
}
