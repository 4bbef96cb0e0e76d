package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/trevni-go/trevni/internal/frontdoor"
)

// env is what a running command sees: its context, which is cancelled when
// the run is interrupted, its standard streams and the common options.
type env struct {
	ctx    context.Context
	app    *app
	name   string   // the command's name, for messages
	quiet  bool     // --quiet: no progress
	force  bool     // --force: replace existing output files
	limits limits   // --max-columns, --max-depth, --max-block-size, --block-memory
	inputs []string // the file arguments, positional and flags, that may be read
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// usagef returns a usage error: the command line is wrong. It is reported
// with the command's usage and exit status 2.
func (e *env) usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// report prints one problem as one line on standard error, for commands that
// go on after a problem (validate). The error that ends a command is
// returned, not reported.
func (e *env) report(err error) {
	e.app.errorf("trevni: %s: %s\n", e.name, oneLine(limitHint(err)))
}

// interrupted returns the context's error once the run is interrupted. Long
// loops call it every so often.
func (e *env) interrupted() error {
	return e.ctx.Err()
}

// displayName names a file argument in messages.
func displayName(path string, output bool) string {
	switch {
	case path != "-" && path != "":
		return path
	case output:
		return "standard output"
	}
	return "standard input"
}

// openInput opens a file argument for streaming input: "-" is standard
// input, which Close leaves open; an object store's URL is read in large
// ranged GETs (frontdoor.OpenStoreStream).
func (e *env) openInput(path string) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(frontdoor.ContextReader(e.ctx, e.stdin)), nil
	}
	if frontdoor.IsStore(path) {
		return frontdoor.OpenStoreStream(e.ctx, path, e.limits.store())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: is a directory", path)
	}
	return f, nil
}
