package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
)

const metaHelp = `
Meta prints a Trevni file's header as one JSON object: the file's length,
row and column counts and metadata, and for every column its number, name,
type, array and values flags, parent (or null), effective codec and
checksum, all its metadata as stored, its start offset, the offset of its
first block (dataStart) and its number of blocks. With --blocks, each column
also lists its block descriptors: rows, uncompressed and compressed sizes,
the offset of the stored bytes (start), the number of the block's first row
(firstRow), for trevni.values columns its first value (firstValue), and,
when the column stores block statistics, those of the block decoded
(stats): its number of values, for an array column its number of lengths
and how many are not zero (lengths, nonEmpty), for a float column whether
it holds NaN (nan), and the bounds of its other values (min, max) with
whether each is exact (minExact, maxExact: a bound of a string or bytes
longer than 64 bytes is cut or rounded up); a key that does not apply is
null. Statistics that disagree with the column's blocks are left out, and
the column's statsError says why. The column's metadata still holds them
as stored (in hex, under stats.blocks).

An Avro container file or a Parquet file, read through the front door as
the other commands read it, gives {"format": "avro" or "parquet",
"fileLength", "rowCount", "metadata", "columnCount", "columns"}: the
metadata an Avro file's header holds (avro.schema, avro.codec, the
writer's keys), or a Parquet file's records' Avro schema as the front door
reads them (restored from parquet.avro.schema, or inferred), and the
columns the records are read as, those of a Trevni file of the schema
(number, name, type, array, parent). A Parquet file's own footer (row
groups, pages, encodings) is DuckDB's parquet_metadata('FILE').

The shape is that of Java's trevni_meta, extended. Keys appear in file
order. A metadata value is a JSON string when it is valid UTF-8, and
otherwise an object {"hex": "..."} holding its bytes in hex; bytes of a key
that are not valid UTF-8 are shown as U+FFFD. First values are written as
dump writes values: bytes in hex, non-finite floats as "NaN", "Infinity"
and "-Infinity".

The output is one line, or indented with --pretty. It goes to OUT.json if
given, otherwise to standard output.

Examples (the file names stand for your own):

	trevni meta --pretty --blocks weather.trv
	trevni meta weather.trv | jq '.columns[].name'
`

// metaCommand sets up "trevni meta".
func metaCommand(fs *flag.FlagSet) runFunc {
	pretty := fs.Bool("pretty", false, "indent the JSON")
	blocks := fs.Bool("blocks", false, "list every column's block descriptors")
	impala := addImpalaBooleans(fs)
	return func(e *env, ins []string, out *output) error {
		// Several inputs give one JSON document per file, in order.
		return e.eachFile(ins, e.openOptions("", *impala), func(f *trevni.File) error {
			return metaOne(e.ctx, out, f, *pretty, *blocks)
		})
	}
}

// metaOne writes the metadata of one file as a JSON document, in the
// shape of its format.
func metaOne(ctx context.Context, out io.Writer, f *trevni.File, pretty, blocks bool) error {
	var (
		b   []byte
		err error
	)
	switch f.Format() {
	case trevni.Trevni1:
		b = v1Meta(frontdoor.Trevni1Reader(f), blocks)
	case trevni.CLMN:
		b = clmnMeta(frontdoor.CLMNReader(f))
	case trevni.Avro:
		b, err = recordsMeta(ctx, f, "avro")
	case trevni.Parquet:
		b, err = recordsMeta(ctx, f, "parquet")
	default:
		b, err = metaJSON(frontdoor.TrevniReader(f), blocks)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", f.Part().Name(), err)
	}
	if b, err = indentJSON(b, pretty); err != nil {
		return err // cannot happen: the writers write valid JSON
	}
	_, err = out.Write(append(b, '\n'))
	return err
}

// metaJSON describes the file as compact JSON; with blocks, it lists every
// block descriptor.
func metaJSON(rd *format.Reader, blocks bool) ([]byte, error) {
	var w jsonWriter
	w.beginObject()
	w.key("fileLength")
	w.int(rd.Size())
	w.key("rowCount")
	w.int(rd.RowCount())
	w.key("columnCount")
	w.int(int64(rd.NumColumns()))
	w.key("metadata")
	writeMeta(&w, rd.Meta())
	w.key("columns")
	w.beginArray()
	for i := range rd.NumColumns() {
		bl, err := rd.Blocks(i)
		if err != nil {
			return nil, err
		}
		c, err := rd.Column(i)
		if err != nil {
			return nil, err
		}
		w.beginObject()
		writeColumnHead(&w, i, c)
		w.key("values")
		w.bool(c.Values)
		w.key("codec")
		w.str(rd.ColumnCodec(i))
		w.key("checksum")
		w.str(rd.ColumnChecksum(i))
		w.key("metadata")
		writeMeta(&w, rd.RawColumnMeta(i))
		w.key("start")
		w.int(rd.ColumnStart(i))
		w.key("dataStart")
		if len(bl) > 0 {
			w.int(bl[0].Offset)
		} else {
			w.int(rd.ColumnStart(i) + 4) // just the block count
		}
		w.key("blockCount")
		w.int(int64(len(bl)))
		if blocks {
			// The statistics stored under stats.MetaKey, decoded block
			// by block; statistics that disagree with the descriptors
			// are left out, and statsError says why.
			sc, err := rd.BlockStats(i)
			if err != nil {
				w.key("statsError")
				w.str(err.Error())
			}
			w.key("blocks")
			w.beginArray()
			for j, b := range bl {
				w.beginObject()
				w.key("rows")
				w.int(b.Rows)
				w.key("uncompressed")
				w.int(int64(b.UncompressedSize))
				w.key("compressed")
				w.int(int64(b.CompressedSize))
				w.key("start")
				w.int(b.Offset)
				w.key("firstRow")
				w.int(b.FirstRow)
				if c.Values {
					w.key("firstValue")
					w.value(b.FirstValue)
				}
				if sc != nil {
					st := &sc.Blocks[j]
					w.key("stats")
					w.beginObject()
					w.key("values")
					w.int(st.Values)
					writeStatsFields(&w, sc.Type, sc.Array, st)
					w.endObject()
				}
				w.endObject()
			}
			w.endArray()
		}
		w.endObject()
	}
	w.endArray()
	w.endObject()
	return w.b, nil
}

// writeMeta writes metadata as an object in stored order.
func writeMeta(w *jsonWriter, m *format.MetaData) {
	w.beginObject()
	for i := range m.Len() {
		w.key(m.Key(i))
		w.bytesValue(m.Value(i))
	}
	w.endObject()
}

// metaSpec is the command "trevni meta".
func metaSpec() *command {
	return &command{
		name: "meta", output: optionalOutput, dataset: true, stdin: true, args: "IN.trv... [OUT.json]", minArgs: 1, maxArgs: -1,
		summary: "print a file's metadata, columns and block descriptors as JSON",
		help:    metaHelp,
		setup:   metaCommand,
	}
}

// writeColumnHead writes the keys that start a column's object in meta's
// output: its number, name, type, array flag and parent (or null).
func writeColumnHead(w *jsonWriter, i int, c *format.ColumnMeta) {
	w.key("number")
	w.int(int64(i))
	w.key("name")
	w.str(c.Name)
	w.key("type")
	w.str(c.Type.String())
	w.key("array")
	w.bool(c.Array)
	w.key("parent")
	if c.Parent == "" {
		w.null()
	} else {
		w.str(c.Parent)
	}
}

// recordsMeta describes a file of records read through the front door
// (an Avro container file, named "avro", or a Parquet file, "parquet") as
// compact JSON (meta): its size, records and metadata (an Avro file's
// header: avro.schema, avro.codec and the writer's keys, in key order
// after avro.schema; a Parquet file's: the records' Avro schema, restored
// or inferred), and the columns the front door reads its records as (those
// of a Trevni file of its schema: number, name, type, array, parent).
func recordsMeta(ctx context.Context, f *trevni.File, name string) ([]byte, error) {
	rd, err := frontdoor.AsTrevni(ctx, f)
	if err != nil {
		return nil, err
	}
	var w jsonWriter
	w.beginObject()
	w.key("format")
	w.str(name)
	w.key("fileLength")
	w.int(f.Part().Size())
	w.key("rowCount")
	w.int(f.RowCount())
	w.key("metadata")
	w.beginObject()
	m := rd.Meta()
	for i := range m.Len() {
		v := m.Value(i)
		w.key(m.Key(i))
		if utf8.Valid(v) {
			w.str(string(v))
		} else {
			w.beginObject()
			w.key("hex")
			w.str(hex.EncodeToString(v))
			w.endObject()
		}
	}
	w.endObject()
	w.key("columnCount")
	w.int(int64(rd.NumColumns()))
	w.key("columns")
	w.beginArray()
	for i := range rd.NumColumns() {
		c, err := rd.Column(i)
		if err != nil {
			return nil, err
		}
		w.beginObject()
		writeColumnHead(&w, i, c)
		w.endObject()
	}
	w.endArray()
	w.endObject()
	return w.b, nil
}

// formatArticle names a file of format f with its article ("an Avro
// file"), for messages.
func formatArticle(f trevni.Format) string {
	switch f {
	case trevni.Avro:
		return "an Avro file"
	case trevni.Parquet:
		return "a Parquet file"
	case trevni.CLMN:
		return "a CLMN file"
	case trevni.Trevni1:
		return "a Trevni 1 file"
	}
	return "a Trevni file"
}
