package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
)

// output is where a command writes its result: standard output, or a file
// or object of a store put in place only when complete, through the front
// door's one committer (frontdoor.Output). Writes are buffered. The
// framework creates it before the command runs (app.runCommand), commits
// it when the run succeeds and aborts it otherwise; the command only
// writes to it.
type output struct {
	w          *bufio.Writer     // standard output's; nil for a file
	file       *frontdoor.Output // nil for standard output
	name       string            // for messages
	unregister func()
	done       bool
	committed  []func() // run once Commit has succeeded (summaries)

	ctx    context.Context // the run's: writes fail once it is done
	app    *app
	tmpDir string // made by TempDir when file has none, or ""
	unTmp  func()
}

// createOutput opens a file argument for output: "-" or "" is standard
// output; any other name a frontdoor.Output: an object store's URL
// (s3://, gs://, azblob://) an upload completed by Commit, a local name a
// file written beside it and renamed into place. Either is removed (the
// upload abandoned) if the process is interrupted before Commit. It
// refuses to write over one of the command's inputs (the same file,
// however named), and over any other existing regular file or object
// unless --force was given.
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
	// Without --force the name was free when the run began (checkOutput):
	// the commit must not replace what another process puts there.
	f, err := frontdoor.Create(e.ctx, path, e.force, nil, e.limits.store())
	if errors.Is(err, trevni.ErrExists) {
		err = fmt.Errorf("%s: %w: give --force to replace it", path, errExists)
	}
	if err != nil {
		return nil, err
	}
	o := &output{name: path, file: f, app: e.app, ctx: e.ctx}
	o.unregister = e.app.addCleanup(func() { f.Abort() })
	return o, nil
}

// errExists is wrapped by the error of createOutput for an existing file
// when --force is not given.
var errExists = errors.New("exists")

// checkOutput checks that path, an output file argument, may be written:
// that it is none of the command's inputs, and that it does not exist
// unless --force was given. Files that are not regular, such as
// /dev/null, are always written.
func (e *env) checkOutput(path string) error {
	if frontdoor.IsURL(path, nil) {
		for _, in := range e.inputs {
			if in == path {
				return fmt.Errorf("%s: the output is also an input: refusing to write over it", path)
			}
		}
		if frontdoor.IsHTTP(path) {
			return fmt.Errorf("%s: an http(s) URL cannot be written: write to a file or an object store (s3://, gs://)", path)
		}
		return nil // a store's Create refuses an existing object without --force
	}
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
	if o.file != nil {
		return o.file.Write(p)
	}
	return o.w.Write(p)
}

// WriteString writes s to the output's buffer, as Write does.
func (o *output) WriteString(s string) (int, error) {
	if err := o.ctx.Err(); err != nil {
		return 0, err
	}
	if o.file != nil {
		return o.file.WriteString(s)
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
	if o.file == nil {
		if err := o.w.Flush(); err != nil {
			return fmt.Errorf("%s: cannot write: %w", o.name, err)
		}
		return nil
	}
	err := o.file.Commit()
	if errors.Is(err, frontdoor.ErrAppeared) {
		// The name was free when the run began.
		return fmt.Errorf("%s: another file was created under this name while this command ran: left untouched (give --force to replace it)", o.name)
	}
	return err
}

// written returns the bytes written to a file and the first of them (see
// frontdoor.Output.Head): after Commit, what was put in place, wherever
// it went.
func (o *output) written() (bytes int64, head []byte) {
	if o.file == nil {
		return 0, nil
	}
	return o.file.Bytes(), o.file.Head()
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
