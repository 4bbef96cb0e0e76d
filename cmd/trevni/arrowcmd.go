package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/trevniarrow"

	"github.com/trevni-go/trevni/trevniparquet"
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
enums as dictionary strings, Avro logical types as Parquet's (durations
as INTERVALs, their twelve bytes). The Avro schema is kept in the
key-value metadata (avro.schema), so fromparquet restores it exactly.
Every column chunk and page has statistics but those of durations
(Parquet gives INTERVALs no order). --fields, --where, --offset, --limit
and --report work as for tojson. The column chunks of a row group are
written on --workers goroutines straight from the Trevni columns, or,
for types the direct path does not write (unions of several branches,
decimals, uuids), through Arrow batches read on
--workers goroutines and written in row order; a row group holds at most
--output-memory (or 64 MiB) of pages.

Examples (the file names stand for your own):

	trevni toparquet events.trv events.parquet
	trevni toparquet --codec zstd --where "kind = 'click'" events/ clicks.parquet
	trevni toparquet --fields id,amount --row-group-rows 1000000 'orders-*.trv' orders.parquet
`

func toparquetCommand(fs *flag.FlagSet) runFunc {
	codec := fs.String("codec", "snappy", "Parquet codec `NAME`: snappy, zstd, gzip, brotli, lz4 or none")
	rowGroup := fs.Int("row-group-rows", trevniparquet.DefaultRowGroupRows, "most `ROWS` of a row group")
	rf := addRangeFlags(fs)
	sf := addSelectFlags(fs)
	workers := addReadWorkersFlags(fs)
	return func(e *env, ins []string, out *output) error {
		return e.arrowOut(ins, out, rf, sf, workers, func(w *output, ds *trevni.Dataset, ro trevniarrow.ReadOptions, report func([]trevni.PartReport)) (int64, error) {
			if *rowGroup <= 0 {
				return 0, e.usagef("--row-group-rows must be positive")
			}
			return trevniparquet.Write(e.ctx, w, ds, &trevniparquet.WriteOptions{Read: ro, Codec: *codec, RowGroupRows: *rowGroup, Report: report})
		})
	}
}

const toarrowHelp = `
Toarrow writes the records of a data set as an Arrow IPC file, or as an
Arrow IPC stream when the output is "-" (standard output) or --stream is
given, in record batches of --batch-rows rows at most. The mapping is
toparquet's, with unions as dense unions and durations as
fixed_size_binary(12) (an Arrow interval's months and days are signed).
--fields, --where, --offset and --limit and --report work as for tojson.
The records are read on --workers goroutines, each reading ranges of
rows into batches of its own, written in row order: the records are
those of one, but a batch ends where a range does, so that --batch-rows
is a maximum.

Examples (the file names stand for your own):

	trevni toarrow events.trv events.arrow
	trevni toarrow events.trv - | python3 -c 'import pyarrow as pa, sys; print(pa.ipc.open_stream(sys.stdin.buffer).read_all())'
`

func toarrowCommand(fs *flag.FlagSet) runFunc {
	stream := fs.Bool("stream", false, "write the IPC stream format (the default for standard output)")
	batch := fs.Int("batch-rows", trevniarrow.DefaultBatchRows, "most `ROWS` of a record batch")
	rf := addRangeFlags(fs)
	sf := addSelectFlags(fs)
	workers := addReadWorkersFlags(fs)
	return func(e *env, ins []string, out *output) error {
		return e.arrowOut(ins, out, rf, sf, workers, func(w *output, ds *trevni.Dataset, ro trevniarrow.ReadOptions, report func([]trevni.PartReport)) (int64, error) {
			if *batch <= 0 {
				return 0, e.usagef("--batch-rows must be positive")
			}
			ro.BatchRows = *batch
			return trevniarrow.WriteIPC(e.ctx, w, ds, &trevniarrow.IPCOptions{Read: ro, Stream: *stream || w.file == nil, Report: report})
		})
	}
}

// arrowOut runs a command that writes a data set through Arrow: it opens
// the inputs as one data set and the output, shows progress, commits the
// output when write succeeds, and then prints what was read (--report;
// write passes report what it read). The records are read on the
// goroutines workers gives, holding the batches within its memory.
func (e *env) arrowOut(ins []string, out *output, rf *rangeFlags, sf *selectFlags, workers func() (readWorkers, error),
	write func(w *output, ds *trevni.Dataset, ro trevniarrow.ReadOptions, report func([]trevni.PartReport)) (int64, error)) error {
	if rf.offset < 0 {
		return e.usagef("--offset must not be negative")
	}
	w, err := workers()
	if err != nil {
		return err
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
	rdo.Workers, rdo.OutputMemory = w.n, w.memory
	ro := trevniarrow.ReadOptions{ReadOptions: *rdo}
	var (
		reports []trevni.PartReport
		report  func([]trevni.PartReport)
	)
	if sf.report {
		report = func(r []trevni.PartReport) { reports = r }
	}
	rows, err := write(out, ds, ro, report)
	if err != nil {
		return e.whereError(err)
	}
	p.done()
	if sf.report {
		e.printReports(reports)
	}
	e.wrote(out, func() string { return pluralCount(rows, "record") })
	return nil
}

const fromparquetHelp = `
Fromparquet converts Parquet files into one Trevni file. The Avro schema
is the one toparquet kept in the file's metadata (avro.schema) when there
is one, so that names, enums, logical types and unions come back exactly;
otherwise it is inferred from the Parquet schema (structs as records,
lists as arrays, maps as maps, optional columns as ["null", T], Parquet
logical types as Avro's). parquet-avro's schema (parquet.avro.schema,
written by parquet-java, Hive and Spark) is taken the same way. A stored
schema the columns do not hold is refused. Every file must map to the
first one's schema. A quoted glob gives the files it matches, and a
directory its *.parquet (*.parq, *.pq) files but those whose name starts
with _ or . (Spark's _SUCCESS, .crc), in name order: the part files Spark,
Hive and DuckDB write.

Page CRC-32s are verified where the file has them (--skip-checksums reads
a damaged file anyway). --parquet-memory bounds the reader's memory, and
--max-page-bytes the largest decompressed page (a quarter of it by
default).
An input may be an http:// or https:// URL, read by range requests. The
Trevni flags (--codec, --block-size, ...) are fromavro's.

Examples (the file names stand for your own):

	trevni fromparquet events.parquet events.trv
	trevni fromparquet --codec zstd part-*.parquet events.trv
	trevni fromparquet 'events/*.parquet' events.trv
	trevni fromparquet events/ events.trv
	trevni fromparquet https://example.com/data/events.parquet events.trv
`

func fromparquetCommand(fs *flag.FlagSet) runFunc {
	tf := addTrevniFlags(fs)
	batch := fs.Int("batch-rows", 8192, "most `ROWS` read from Parquet at a time")
	pqMemory := fs.String("parquet-memory", "1GiB", "most `SIZE` of memory the Parquet reader holds at once (pages, dictionaries, batches)")
	pageBytes := fs.String("max-page-bytes", "", "largest decompressed Parquet page `SIZE` read (default a quarter of --parquet-memory)")
	return func(e *env, ins []string, out *output) error {
		ins, err := converterInputs(ins, ".parquet", ".parq", ".pq")
		if err != nil {
			return err
		}
		opts, err := tf.options(e)
		if err != nil {
			return err
		}
		if *batch <= 0 {
			return e.usagef("--batch-rows must be positive")
		}
		maxMem, err := parseSize(*pqMemory)
		if err != nil || maxMem <= 0 {
			return e.usagef("--parquet-memory: want a positive size such as 1GiB, got %q", *pqMemory)
		}
		var maxPage int64
		if *pageBytes != "" {
			if maxPage, err = parseSize(*pageBytes); err != nil || maxPage <= 0 {
				return e.usagef("--max-page-bytes: want a positive size such as 512MiB, got %q", *pageBytes)
			}
		}
		if opts.TempDir, err = out.TempDir(); err != nil {
			return err
		}
		var (
			w    *trevni.Writer
			rows int64
		)
		var total int64 // the inputs' bytes, when all are local files
		for _, in := range ins {
			fi, err := os.Stat(in)
			if err != nil || frontdoor.IsURL(in, nil) {
				total = 0
				break
			}
			total += fi.Size()
		}
		p := e.newProgress(0, total)
		defer p.done()
		var done int64 // the bytes of the inputs converted
		for _, in := range ins {
			// Opened as the front door opens a part: a file, a URL read
			// by range requests, an object of a store pinned to its
			// version (or standard input).
			ra, size, closeRA, err := e.randomAccess(in)
			if err != nil {
				return err
			}
			r, closeIn := io.NewSectionReader(ra, 0, size), func() { closeRA() }
			before := rows
			pf, err := trevniparquet.Open(r, &trevniparquet.ReadOptions{BatchRows: *batch, Progress: func(n int64) {
				p.setRows(before + n)
			}, SkipChecksums: e.limits.skipChecksums, MaxMemory: maxMem, MaxPageBytes: maxPage})
			if err != nil {
				closeIn()
				return fmt.Errorf("%s: %w", in, err)
			}
			if w == nil {
				wo := frontWriteOptions(opts, e.limits.layout(), runtime.GOMAXPROCS(0))
				frontdoor.KeepMapOrder(wo) // a MAP's entries in the file's order, as DuckDB reads them
				w, err = trevni.NewWriter(out, pf.AvroSchema(), wo)
				if err != nil {
					pf.Close()
					closeIn()
					return fmt.Errorf("%s: %w", in, err)
				}
				defer w.Abort()
			}
			n, err := pf.WriteTo(e.ctx, w)
			rows += n
			p.setRows(rows)
			pf.Close()
			closeIn()
			done += size
			p.setBytes(done)
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
