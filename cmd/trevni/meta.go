package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
)

const metaHelp = `
Meta prints a Trevni file's header as one JSON object: the file's length,
row and column counts and metadata, and for every column its number, name,
type, array and values flags, parent (or null), effective codec and
checksum, all its metadata as stored, its start offset, the offset of its
first block (dataStart) and its number of blocks. With --blocks, each column
also lists its block descriptors: rows, uncompressed and compressed sizes,
the offset of the stored bytes (start), the number of the block's first row
(firstRow) and, for trevni.values columns, its first value (firstValue).

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
			return metaOne(out, f, *pretty, *blocks)
		})
	}
}

// metaOne writes the metadata of one file as a JSON document, in the
// shape of its format.
func metaOne(out io.Writer, f *trevni.File, pretty, blocks bool) error {
	var (
		b   []byte
		err error
	)
	switch f.Format() {
	case trevni.Trevni1:
		b = v1Meta(f.Trevni1(), blocks)
	case trevni.CLMN:
		b = clmnMeta(f.CLMN())
	default:
		b, err = metaJSON(f.Trevni(), blocks)
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
			w.key("blocks")
			w.beginArray()
			for _, b := range bl {
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
