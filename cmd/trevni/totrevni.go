package main

import (
	"fmt"
	"io"
	"os"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
)

// inputSize returns the size of a file argument, or 0 when unknown.
func inputSize(path string) int64 {
	if path == "-" {
		return 0
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		return fi.Size()
	}
	return 0
}

// wrote prints what a command wrote, "trevni: NAME: wrote FILE: " and
// what detail says, once out is committed, unless --quiet or writing to
// standard output.
func (e *env) wrote(out *output, detail func() string) {
	if e.quiet || !out.IsFile() {
		return
	}
	out.afterCommit(func() {
		fmt.Fprintf(e.stderr, "trevni: %s: wrote %s: %s\n", e.name, out.Name(), detail())
	})
}

// summary prints what a command wrote to a Trevni file, once it is
// committed, unless --quiet or writing to standard output: the rows, and
// the columns and bytes of what was written (the header's first bytes and
// the output's count, so that a file and an object of a store are told
// alike, with nothing read back).
func (e *env) summary(out *output, rows int64, o format.WriterOptions) {
	e.wrote(out, func() string {
		size, head := out.written()
		cols := "? columns"
		if _, n, ok := frontdoor.TrevniHeader(head); ok {
			cols = pluralCount(int64(n), "column")
		}
		return fmt.Sprintf("%s, %s, %s (codec %s, checksum %s)", pluralCount(rows, "row"), cols, pluralCount(size, "byte"), o.Codec, o.Checksum)
	})
}

// toTrevni runs a conversion of the stream at inPath into the Trevni file
// out: it opens the input, shows progress, and prints a summary once the
// output is committed.
func (e *env) toTrevni(inPath string, out *output, opts *format.WriterOptions,
	convert func(out io.Writer, in io.Reader, progress func(rows, bytesIn int64)) (int64, error)) error {
	var err error
	if opts.TempDir, err = out.TempDir(); err != nil {
		return err
	}
	in, err := e.openInput(inPath)
	if err != nil {
		return err
	}
	defer in.Close()
	p := e.newProgress(0, inputSize(inPath))
	defer p.done()
	rows, err := convert(out, frontdoor.ContextReader(e.ctx, in), func(rows, n int64) {
		p.setRows(rows)
		p.setBytes(n)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", displayName(inPath, false), err)
	}
	p.done()
	e.summary(out, rows, *opts)
	return nil
}
