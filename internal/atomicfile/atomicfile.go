// Package atomicfile writes an output file that appears under its name only
// once it is complete, so that a failed or interrupted run leaves nothing
// behind and never a partial file.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// File is an output file that appears under its name only once it is
// complete. It is written to a file in a private temporary directory beside
// the target (so that the final rename is atomic, and so that a spill file
// of the writer can be put there too) and renamed into place by Commit,
// which then removes the directory; Abort removes the directory and all it
// holds, and leaves any existing file of that name untouched. A replaced
// file keeps its permissions; a new one gets 0666 less the umask, as with
// os.Create. When the name is a symbolic link, the file it points to is
// written, not the link, even when that file does not exist yet.
//
// A target that exists but is not a regular file, such as /dev/null or a
// named pipe, cannot be replaced: it is written directly.
//
// Write may be called from one goroutine while Commit or Abort is called
// from another; a Write after either fails.
type File struct {
	f      *os.File
	path   string // the target
	tmpDir string // the private directory holding tmp, or ""
	tmp    string // the temporary file, or "" when writing the target directly

	replace bool // Commit may replace a file that exists by then

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

// ErrExists is wrapped by the errors of Create and Commit for an existing
// file that may not be replaced.
var ErrExists = errors.New("exists")

// ErrAppeared is wrapped by the error of a Commit that may not replace a
// file that another process created under the name while the output was
// being written; it wraps ErrExists.
var ErrAppeared = fmt.Errorf("%w: another file was created under this name", ErrExists)

// Create starts writing the file path. Unless replace is true, a regular
// file of that name that exists already, or that appears before Commit,
// is an error wrapping ErrExists, and is left untouched.
func Create(path string, replace bool) (*File, error) {
	target, err := resolveLinks(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(target)
	switch {
	case err == nil && fi.Mode().IsRegular() && !replace:
		return nil, fmt.Errorf("%s: %w", path, ErrExists)
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("%s: cannot create: is a directory", path)
	case err == nil && !fi.Mode().IsRegular():
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, err
		}
		return &File{f: f, path: target}, nil
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
	return &File{f: f, path: target, tmpDir: tmpDir, tmp: tmp, replace: replace}, nil
}

// TempDir returns the private directory beside the target where other
// temporary files of the run may go, removed with it; "" when the target
// is written directly.
func (a *File) TempDir() string { return a.tmpDir }

// Name returns the file's final name.
func (a *File) Name() string { return a.path }

// Write writes to the temporary file.
func (a *File) Write(p []byte) (int, error) {
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
func (a *File) Commit() error {
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
	if err == nil {
		if a.replace {
			err = os.Rename(a.tmp, a.path)
		} else {
			err = renameNoReplace(a.tmp, a.path)
		}
	}
	os.RemoveAll(a.tmpDir)
	if errors.Is(err, ErrAppeared) {
		return fmt.Errorf("%s: %w while it was being written: left untouched", a.path, ErrAppeared)
	}
	if err != nil {
		return fmt.Errorf("%s: cannot write: %w", a.path, err)
	}
	syncDir(filepath.Dir(a.path))
	return nil
}

// Abort removes the temporary directory. It does nothing after Commit or Abort,
// so it can be deferred.
func (a *File) Abort() error {
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
