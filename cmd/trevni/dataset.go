package main

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
)

// The reading commands take a data set: several files, shell-style globs
// (expanded by frontdoor.ExpandNames, so they may be quoted) and directories
// (their *.trv, *.trv1, *.clmn, *.avro and *.parquet files in name order),
// local files,
// http(s) URLs or objects of stores (s3://, gs://, azblob://, globs over
// their keys and prefixes ending in "/" included), read one after the other as one stream of records. Every
// input is opened through the front door, package trevni, which tells the
// formats apart and reads them; this file adds only what is particular to
// a command line: standard input and named pipes, copied when they allow
// no random access, and the flags turned into the front door's options.

// isInputArg reports whether an argument names input rather than an
// output: an http(s) URL, a glob, a directory, an object store's URL
// that is a glob, a prefix (ending in "/") or an object of a data
// extension (frontdoor.DataExt: *.trv, *.trv1, *.clmn, *.avro,
// *.parquet), or an existing regular file that starts as a file of a
// format the front door reads does (trevni.DetectFormat: Trevni, Trevni 1,
// CLMN; Avro and Parquet files only when named *.avro or *.parquet).
func isInputArg(arg string) bool {
	if frontdoor.IsStore(arg) {
		switch {
		case frontdoor.HasGlob(arg), strings.HasSuffix(arg, "/"):
			return true
		}
		return frontdoor.DataExt(arg)
	}
	if frontdoor.IsURL(arg, nil) || frontdoor.HasGlob(arg) {
		return true
	}
	fi, err := os.Stat(arg)
	if err != nil || !fi.Mode().IsRegular() {
		return err == nil && fi.IsDir() // a named pipe is not read to find out
	}
	f, err := os.Open(arg)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return false
	}
	switch form, err := trevni.DetectFormat(magic[:]); {
	case err != nil:
		return false
	case form == trevni.Avro || form == trevni.Parquet:
		// Files of other tools' formats are input only under their
		// own extension: an existing out.json that happens to hold
		// Avro is an output (replaced with --force), not read.
		ext := strings.ToLower(filepath.Ext(arg))
		return ext == ".avro" || ext == ".parquet"
	}
	return true
}

// openOptions returns the front door's options for the command's flags:
// the limits (--max-*, --block-memory, --max-download, --http-timeout), the reader schema
// (its text, "" for none) and Trevni 1's --impala-booleans.
func (e *env) openOptions(readerSchema string, impalaBooleans bool) *trevni.OpenOptions {
	return &trevni.OpenOptions{
		ReaderSchema:   readerSchema,
		MaxColumns:     e.limits.maxColumns,
		MaxDepth:       e.limits.maxDepth,
		MaxBlockSize:   int(e.limits.maxBlock),
		BlockMemory:    e.limits.blockMemory,
		SkipChecksums:  e.limits.skipChecksums,
		ReadAhead:      true, // the command takes every core
		ImpalaBooleans: impalaBooleans,
		HTTP:           e.limits.http(),
		StoreStall:     e.limits.stall(),
		MaxRecordBytes: e.limits.maxRecord,
		MaxDownload:    e.limits.maxDownload,
	}
}

// openDataset opens the inputs (expanded already) as one data set through
// the front door. Standard input ("-") and a named pipe, which allow no
// random access, are copied to a temporary file first, or used in place
// when they allow it; they are then the only input. done closes the data
// set and removes the copy.
func (e *env) openDataset(ins []string, o *trevni.OpenOptions) (ds *trevni.Dataset, done func(), err error) {
	if len(ins) == 1 && notSeekable(ins[0]) {
		ra, size, closeRA, err := e.randomAccess(ins[0])
		if err != nil {
			return nil, nil, err
		}
		ds, err := trevni.OpenReaderAt(e.ctx, ra, size, displayName(ins[0], false), o)
		if err != nil {
			closeRA()
			return nil, nil, err
		}
		return ds, func() { ds.Close(); closeRA() }, nil
	}
	for _, in := range ins {
		if in == "-" {
			return nil, nil, errors.New("standard input (-) cannot be read with other inputs")
		}
	}
	ds, err = trevni.OpenFiles(e.ctx, ins, o)
	if err != nil {
		return nil, nil, err
	}
	if !e.quiet {
		for _, p := range ds.Parts() {
			if n := p.Downloaded(); n > 0 {
				e.app.errorf("trevni: %s: %s: the server does not serve byte ranges: downloaded %d bytes to a temporary file\n", e.name, p.Name(), n)
			}
		}
	}
	return ds, func() { ds.Close() }, nil
}

// notSeekable reports whether an input is standard input or a named
// pipe: read through env.randomAccess rather than opened by name.
func notSeekable(name string) bool {
	if name == "-" {
		return true
	}
	if frontdoor.IsURL(name, nil) {
		return false
	}
	fi, err := os.Stat(name)
	return err == nil && !fi.IsDir() && !fi.Mode().IsRegular()
}

// eachFile opens each input on its own through the front door (files of
// different schemas may be listed together) and calls fn with its one
// part opened, for a command that describes files one by one (meta).
func (e *env) eachFile(ins []string, o *trevni.OpenOptions, fn func(f *trevni.File) error) error {
	for _, in := range ins {
		if err := e.withFile(in, o, fn); err != nil {
			return err
		}
	}
	return nil
}

// withFile opens one input through the front door and calls fn with its
// part opened.
func (e *env) withFile(in string, o *trevni.OpenOptions, fn func(f *trevni.File) error) error {
	ds, done, err := e.openDataset([]string{in}, o)
	if err != nil {
		return err
	}
	defer done()
	return e.withPart(ds.Parts()[0], fn)
}

// withPart calls fn with the part opened.
func (e *env) withPart(part *trevni.Part, fn func(f *trevni.File) error) error {
	f, err := part.Open(e.ctx)
	if err != nil {
		return err
	}
	defer f.Close()
	return fn(f)
}

// readOptions returns the front door's read options for the range and
// selection flags (either may be nil), with progress reported to p (nil
// for none). --limit 0 selects nothing, which the front door's Limit (0
// for no limit) cannot say: the offset is put past the last row instead,
// so that the flags are still checked and the records' schema learnt.
func (e *env) readOptions(ds *trevni.Dataset, rf *rangeFlags, sf *selectFlags, p *progress) (*trevni.ReadOptions, error) {
	o := &trevni.ReadOptions{Workers: 1} // commands with --workers set their own
	if rf != nil {
		if rf.offset < 0 {
			return nil, e.usagef("--offset must not be negative")
		}
		o.Offset = rf.offset
		switch {
		case rf.limit == 0:
			o.Offset = max(o.Offset, ds.RowCount())
		case rf.limit > 0:
			o.Limit = rf.limit
		}
	}
	if sf != nil {
		o.Fields = fieldList(sf.fields)
		o.Where = sf.where
	}
	if p != nil {
		o.Progress = func(records, bytes int64) {
			p.setRows(records)
			p.setBytes(bytes)
		}
	}
	return o, nil
}

// newReader returns a reader of the data set's records with o, a bad
// --where expression reported as a usage error with its caret.
func (e *env) newReader(ds *trevni.Dataset, o *trevni.ReadOptions) (*trevni.Reader, error) {
	r, err := ds.NewReader(e.ctx, o)
	if err != nil {
		return nil, e.whereError(err)
	}
	return r, nil
}

// printReports prints the scan report of each part a reader read and,
// when there are several, their sum (--report).
func (e *env) printReports(reps []trevni.PartReport) {
	var reports partReports
	for _, r := range reps {
		reports.add(e, r.Part, r.Scan, &r.Fetched)
	}
	reports.finish(e)
}

// readerSchemaText reads the --schema file, if one is given.
func (e *env) readerSchemaText(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	text, _, err := e.readSchemaFile(path)
	return text, err
}

// writeJSON prints the records of the data set ins as Avro JSON lines to
// out (tojson and head), through the reader schema file if given, in the
// range of rf, with the fields and filter of sf, on workers goroutines.
func (e *env) writeJSON(ins []string, out *output, readerSchemaFile string, impala, pretty, plain bool, rf *rangeFlags, sf *selectFlags, workers readWorkers) error {
	text, err := e.readerSchemaText(readerSchemaFile)
	if err != nil {
		return err
	}
	ds, done, err := e.openDataset(ins, e.openOptions(text, impala))
	if err != nil {
		return err
	}
	defer done()
	p := e.newProgress(ds.RowCount(), ds.Size())
	defer p.done()
	o, err := e.readOptions(ds, rf, sf, p)
	if err != nil {
		return err
	}
	o.Workers, o.OutputMemory = workers.n, workers.memory
	if plain && ds.FromProtobuf() {
		// protojson, message by message.
		_, err := ds.WriteJSON(e.ctx, out, o, &trevni.JSONOptions{Plain: true, Pretty: pretty})
		return e.whereError(err)
	}
	r, err := e.newReader(ds, o)
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := r.WriteJSON(out, &trevni.JSONOptions{Pretty: pretty, Plain: plain}); err != nil {
		return err
	}
	if sf != nil && sf.report {
		p.done()
		e.printReports(r.Report())
	}
	return nil
}

// toContainer writes the records of the data set in the range rf selects,
// with the fields and filter of sf, to out as one Avro object container
// file of their schema (the reader schema, the parts' schema, or its
// projection on --fields), on workers goroutines, and returns the records
// written.
func (e *env) toContainer(out io.Writer, ds *trevni.Dataset, rf *rangeFlags, sf *selectFlags, codec string, p *progress, workers readWorkers) (int64, error) {
	o, err := e.readOptions(ds, rf, sf, p)
	if err != nil {
		return 0, err
	}
	o.Workers, o.OutputMemory = workers.n, workers.memory
	r, err := e.newReader(ds, o)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	n, err := r.WriteAvro(out, &trevni.AvroOptions{Codec: trevni.Codec(codec)})
	if err != nil {
		return n, err
	}
	if sf != nil && sf.report {
		p.done()
		e.printReports(r.Report())
	}
	return n, nil
}

// addImpalaBooleans defines --impala-booleans, for the commands that read
// Trevni 1 files.
func addImpalaBooleans(fs *flag.FlagSet) *bool {
	return fs.Bool("impala-booleans", false, "Trevni 1 input: read a boolean block that Impala's size bug left short as Impala's scanner did (the missing bits from the bytes after it) instead of failing")
}
