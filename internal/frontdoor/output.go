package frontdoor

import (
	"bufio"
	"context"
	"errors"

	"github.com/trevni-go/trevni/internal/atomicfile"
	"github.com/trevni-go/trevni/remote/store"
)

// Committer is an output written whole before it appears under its name:
// a temporary file beside it (atomicfile.File) or an upload to an object
// store (store.Writer).
type Committer interface {
	Write(p []byte) (int, error)
	// Commit puts the output in place.
	Commit() error
	// Abort removes what was written; the name is left as it was.
	Abort() error
	// TempDir is the private directory of the output's temporary files
	// (beside a local file), "" for none.
	TempDir() string
}

// Output is a file or an object being written, buffered, that appears
// under its name only when Commit succeeds: the one committer of the
// front door's writers and of the command's outputs. It counts the bytes
// written and keeps the first of them, so that what was written is told
// without reading it back from where it went. It is not safe for
// concurrent use.
type Output struct {
	name string
	bw   *bufio.Writer
	file Committer
	cw   countWriter
	done bool // committed or aborted
}

// ErrClosed is the error of Commit after Commit or Abort.
var ErrClosed = errors.New("the output is already committed or aborted")

// Create starts the output name: an object of a store when name is a
// store's URL (stores handed in by scheme first, then the linked
// drivers; so configures its requests and ctx bounds the upload), else a
// local file written beside it. Without replace an output that exists is
// refused with an error wrapping atomicfile.ErrExists, as is one that
// appears under the name before Commit (atomicfile.ErrAppeared).
func Create(ctx context.Context, name string, replace bool, stores map[string]store.Store, so *store.Options) (*Output, error) {
	var f Committer
	if store.IsURL(name, stores) {
		st, err := store.For(name, stores)
		if err != nil {
			return nil, err
		}
		if f, err = st.Create(ctx, name, replace, so); err != nil {
			return nil, err
		}
	} else {
		af, err := atomicfile.Create(name, replace)
		if err != nil {
			return nil, err
		}
		f = af
	}
	o := &Output{name: name, file: f}
	o.cw.w = f
	o.bw = bufio.NewWriterSize(&o.cw, 256<<10)
	return o, nil
}

// Name returns the output's name as given.
func (o *Output) Name() string { return o.name }

// Write writes p to the output's buffer.
func (o *Output) Write(p []byte) (int, error) { return o.bw.Write(p) }

// WriteString writes s to the output's buffer.
func (o *Output) WriteString(s string) (int, error) { return o.bw.WriteString(s) }

// TempDir returns the private directory beside a local output for
// temporary files (spills), removed by Commit and Abort; "" for an
// object of a store.
func (o *Output) TempDir() string { return o.file.TempDir() }

// Commit flushes the buffer and puts the output in place. After a failed
// flush the output is abandoned.
func (o *Output) Commit() error {
	if o.done {
		return ErrClosed
	}
	o.done = true
	if err := o.bw.Flush(); err != nil {
		o.file.Abort()
		return err
	}
	return o.file.Commit()
}

// Abort abandons the output, leaving the name as it was. It does nothing
// after Commit or Abort.
func (o *Output) Abort() {
	if o.done {
		return
	}
	o.done = true
	o.file.Abort()
}

// Done reports whether the output was committed or aborted.
func (o *Output) Done() bool { return o.done }

// Bytes returns the bytes written through the buffer so far: after
// Commit, the size of what was put in place.
func (o *Output) Bytes() int64 { return o.cw.n }

// Head returns the first bytes written through the buffer (up to 16:
// those of a Trevni file's header that give its rows and columns).
func (o *Output) Head() []byte { return o.cw.head[:o.cw.headN] }

// countWriter counts the bytes written to w and keeps the first.
type countWriter struct {
	w     Committer
	n     int64
	head  [16]byte
	headN int
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.headN < len(c.head) {
		c.headN += copy(c.head[c.headN:], p)
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
