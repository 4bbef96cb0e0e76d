package main

import (
	"fmt"
	"io"
	"os"

	"github.com/trevni-go/trevni/format"
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

// summary prints what a command wrote, unless --quiet or writing to
// standard output.
func (e *env) summary(out *output, rows int64, o format.WriterOptions) {
	if e.quiet || out.file == nil {
		return
	}
	cols := "? columns"
	var size int64
	if rc, err := format.Open(out.Name()); err == nil {
		cols = pluralCount(int64(rc.NumColumns()), "column")
		size = rc.Size()
		rc.Close()
	}
	fmt.Fprintf(e.stderr, "trevni: %s: wrote %s: %s, %s, %s (codec %s, checksum %s)\n",
		e.name, out.Name(), pluralCount(rows, "row"), cols, pluralCount(size, "byte"), o.Codec, o.Checksum)
}

// toTrevni runs a conversion of the stream at inPath into the Trevni file
// at outPath: it opens both (the output first, so that a bad output name
// fails before a large input is read), shows progress, and commits the
// output and prints a summary when convert succeeds.
func (e *env) toTrevni(inPath, outPath string, opts *format.WriterOptions,
	convert func(out io.Writer, in io.Reader, progress func(rows, bytesIn int64)) (int64, error)) error {
	out, err := e.createOutput(outPath)
	if err != nil {
		return err
	}
	defer out.Abort()
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
	rows, err := convert(out, &ctxReader{ctx: e.ctx, r: in}, func(rows, n int64) {
		p.setRows(rows)
		p.setBytes(n)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", displayName(inPath, false), err)
	}
	if err := out.Commit(); err != nil {
		return err
	}
	p.done()
	e.summary(out, rows, *opts)
	return nil
}
