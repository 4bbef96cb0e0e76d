package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/shred"
	"github.com/trevni-go/trevni/trevniarrow"
)

// arrowCommands are the commands that convert through Apache Arrow:
// toparquet, fromparquet and toarrow.
func arrowCommands() []*command {
	return []*command{
		{
			name: "toparquet", output: lastOutput, dataset: true, args: "IN... OUT.parquet", minArgs: 2, maxArgs: -1,
			summary: "convert a data set to a Parquet file",
			help:    toparquetHelp, setup: toparquetCommand,
		},
		{
			name: "fromparquet", output: lastOutput, args: "IN.parquet... OUT.trv", minArgs: 2, maxArgs: -1,
			summary: "convert Parquet files to Trevni",
			help:    fromparquetHelp, setup: fromparquetCommand,
		},
		{
			name: "toarrow", output: lastOutput, dataset: true, args: "IN... OUT.arrow", minArgs: 2, maxArgs: -1,
			summary: "convert a data set to an Arrow IPC file (or stream, to -)",
			help:    toarrowHelp, setup: toarrowCommand,
		},
	}
}

const toparquetHelp = `
Toparquet writes the records of a data set (Trevni 2, Trevni 1 or CLMN
files; globs, directories and URLs as for tojson) as one Parquet file:
records as structs, arrays as lists, maps as maps, ["null", T] as an
optional T, other unions as structs of one optional field per branch,
enums as dictionary strings, Avro logical types as Parquet's. The Avro
schema is kept in the key-value metadata (avro.schema), so fromparquet
restores it exactly. Every column chunk and page has statistics. --fields,
--where, --offset and --limit work as for tojson (--report is not taken).

Examples (the file names stand for your own):

	trevni toparquet events.trv events.parquet
	trevni toparquet --codec zstd --where "kind = 'click'" events/ clicks.parquet
	trevni toparquet --fields id,amount --row-group-rows 1000000 'orders-*.trv' orders.parquet
`

func toparquetCommand(fs *flag.FlagSet) runFunc {
	codec := fs.String("codec", "snappy", "Parquet codec `NAME`: snappy, zstd, gzip, brotli, lz4 or none")
	rowGroup := fs.Int("row-group-rows", trevniarrow.DefaultRowGroupRows, "most `ROWS` of a row group")
	rf := addRangeFlags(fs)
	sf := addSelectFlags(fs)
	return func(e *env, ins []string, out *output) error {
		return e.arrowOut(ins, out, rf, sf, func(w *output, ds *trevni.Dataset, ro trevniarrow.ReadOptions) (int64, error) {
			if *rowGroup <= 0 {
				return 0, e.usagef("--row-group-rows must be positive")
			}
			return trevniarrow.WriteParquet(e.ctx, w, ds, &trevniarrow.ParquetOptions{Read: ro, Codec: *codec, RowGroupRows: *rowGroup})
		})
	}
}

const toarrowHelp = `
Toarrow writes the records of a data set as an Arrow IPC file, or as an
Arrow IPC stream when the output is "-" (standard output) or --stream is
given, in record batches of --batch-rows rows at most. The mapping is
toparquet's, with unions as dense unions. --fields, --where, --offset and
--limit work as for tojson (--report is not taken).

Examples (the file names stand for your own):

	trevni toarrow events.trv events.arrow
	trevni toarrow events.trv - | python3 -c 'import pyarrow as pa, sys; print(pa.ipc.open_stream(sys.stdin.buffer).read_all())'
`

func toarrowCommand(fs *flag.FlagSet) runFunc {
	stream := fs.Bool("stream", false, "write the IPC stream format (the default for standard output)")
	batch := fs.Int("batch-rows", trevniarrow.DefaultBatchRows, "most `ROWS` of a record batch")
	rf := addRangeFlags(fs)
	sf := addSelectFlags(fs)
	return func(e *env, ins []string, out *output) error {
		return e.arrowOut(ins, out, rf, sf, func(w *output, ds *trevni.Dataset, ro trevniarrow.ReadOptions) (int64, error) {
			if *batch <= 0 {
				return 0, e.usagef("--batch-rows must be positive")
			}
			ro.BatchRows = *batch
			return trevniarrow.WriteIPC(e.ctx, w, ds, &trevniarrow.IPCOptions{Read: ro, Stream: *stream || w.file == nil})
		})
	}
}

// arrowOut runs a command that writes a data set through Arrow: it opens
// the inputs as one data set and the output, shows progress, and commits
// the output when write succeeds.
func (e *env) arrowOut(ins []string, out *output, rf *rangeFlags, sf *selectFlags,
	write func(w *output, ds *trevni.Dataset, ro trevniarrow.ReadOptions) (int64, error)) error {
	if rf.offset < 0 {
		return e.usagef("--offset must not be negative")
	}
	if sf.report {
		return e.usagef("--report is not supported by %s", e.name)
	}
	tmp, err := out.TempDir()
	if err != nil {
		return err
	}
	o := e.openOptions("", false)
	o.TempDir = tmp
	ds, done, err := e.openDataset(ins, o)
	if err != nil {
		return err
	}
	defer done()
	p := e.newProgress(ds.RowCount(), ds.Size())
	defer p.done()
	rdo, err := e.readOptions(ds, rf, sf, p)
	if err != nil {
		return err
	}
	ro := trevniarrow.ReadOptions{ReadOptions: *rdo}
	rows, err := write(out, ds, ro)
	if err != nil {
		return e.whereError(err)
	}
	p.done()
	e.wrote(out, func() string { return pluralCount(rows, "record") })
	return nil
}

const fromparquetHelp = `
Fromparquet converts Parquet files into one Trevni file. The Avro schema
is the one toparquet kept in the file's metadata (avro.schema) when there
is one, so that names, enums, logical types and unions come back exactly;
otherwise it is inferred from the Parquet schema (structs as records,
lists as arrays, maps as maps, optional columns as ["null", T], Parquet
logical types as Avro's). Every file must map to the first one's schema.
The Trevni flags (--codec, --block-size, ...) are fromavro's.

Examples (the file names stand for your own):

	trevni fromparquet events.parquet events.trv
	trevni fromparquet --codec zstd part-*.parquet events.trv
`

func fromparquetCommand(fs *flag.FlagSet) runFunc {
	tf := addTrevniFlags(fs)
	batch := fs.Int("batch-rows", 8192, "most `ROWS` read from Parquet at a time")
	return func(e *env, ins []string, out *output) error {
		opts, err := tf.options(e)
		if err != nil {
			return err
		}
		if *batch <= 0 {
			return e.usagef("--batch-rows must be positive")
		}
		if opts.TempDir, err = out.TempDir(); err != nil {
			return err
		}
		var (
			w     *trevni.Writer
			rows  int64
			total int64
		)
		for _, in := range ins {
			if fi, err := os.Stat(in); err == nil {
				total += fi.Size()
			}
		}
		p := e.newProgress(0, total)
		defer p.done()
		var done int64
		for _, in := range ins {
			f, err := os.Open(in)
			if err != nil {
				return err
			}
			pf, err := trevniarrow.OpenParquet(f, &trevniarrow.ParquetReadOptions{BatchRows: *batch})
			if err != nil {
				f.Close()
				return fmt.Errorf("%s: %w", in, err)
			}
			if w == nil {
				w, err = trevni.NewWriter(out, pf.AvroSchema(), &trevni.WriteOptions{Options: shred.Options{WriterOptions: opts, Layout: e.limits.layout()}})
				if err != nil {
					pf.Close()
					f.Close()
					return fmt.Errorf("%s: %w", in, err)
				}
				defer w.Abort()
			}
			n, err := pf.WriteTo(e.ctx, w)
			rows += n
			p.setRows(rows)
			pf.Close()
			if fi, serr := f.Stat(); serr == nil {
				done += fi.Size()
				p.setBytes(done)
			}
			f.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", in, err)
			}
		}
		if err := w.Close(); err != nil {
			return err
		}
		p.done()
		e.summary(out, rows, opts)
		return nil
	}
}
