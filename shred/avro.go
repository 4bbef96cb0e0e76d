package shred

import (
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/typemap"
)

// Options configures an AvroWriter. A nil *Options means the defaults.
type Options struct {
	// WriterOptions configures the Trevni file: its codec, checksum, block
	// size, memory budget and extra metadata (written before avro.schema,
	// as Java orders them; it must not set avro.schema itself).
	format.WriterOptions
	// Layout bounds the schema's column layout (columns, nesting depth);
	// nil means layout's defaults.
	Layout *layout.Options
	// Progress, if not nil, is called by FromContainer and AppendContainer
	// after every Avro block (with several workers, after every range of
	// blocks joined), with the records the writer holds so far and the
	// container bytes consumed so far.
	Progress func(rows, bytesIn int64)
	// Workers is how many goroutines FromContainer and AppendContainer
	// decode and shred container blocks on (WriteLines its lines,
	// WriteRanges its ranges, and FromProtoStream its messages, as
	// ProtoOptions.File):
	// 0 means runtime.GOMAXPROCS(0),
	// 1 the one goroutine of the sequential path. With more than one,
	// ranges of blocks are shredded into segments that are joined in row
	// order (format.Writer.AppendWriter): the records are the same, the
	// blocks end where segments do. The memory budget
	// (WriterOptions.MemoryBudget) is shared by all of them. Files that
	// promise Java's bytes (null codec, statistics off) are always
	// written on one goroutine.
	Workers int
	// KeepMapOrder writes the entries of maps given in Avro binary
	// (WriteBinary, the containers) in the order they come, where by
	// default they are sorted by key. Of equal keys only the last is
	// kept, where it stands, either way: a reader (Java's, ours) takes
	// the last. Converters of a format whose maps have an order that
	// readers show (Parquet's MAP, which DuckDB reads as a list of
	// entries) set it so that the order comes back out; Java's reader
	// reads such a file as any other (it keeps the file's order in a
	// HashMap, which has none). Maps given as Go maps (Write) have no
	// order and are always sorted.
	KeepMapOrder bool
}

// AvroWriter shreds Avro records into a Trevni file. It is not safe for
// concurrent use.
type AvroWriter struct {
	w        *format.Writer
	schema   *schema.Schema
	root     *layout.Node
	prog     []step // the program that decodes root's Avro binary
	cols     []layout.Column
	progress func(rows, bytesIn int64)

	// What segments written on other goroutines need (parallel.go).
	metas   []format.ColumnMeta
	wopts   format.WriterOptions
	workers int

	// Scratch space for map entries, one per nesting depth, so that
	// writing maps allocates nothing once it has grown.
	maps [][]MapEntry
	// keepOrder is Options.KeepMapOrder; order and drop are scratch
	// space for finding equal keys among entries kept in order.
	keepOrder bool
	order     []keyAt
	drop      []bool
}

// NewAvroWriter returns a writer of records of the Avro schema given as
// JSON text, which it stores as the file's avro.schema exactly as given.
// The file is written to out when Close is called.
func NewAvroWriter(out io.Writer, schemaText string, opts *Options) (*AvroWriter, error) {
	var lo *layout.Options
	if opts != nil {
		lo = opts.Layout
	}
	s, err := layout.ParseStored(schemaText, lo)
	if err != nil {
		return nil, err
	}
	return newAvroWriter(out, s, schemaText, opts)
}

// newAvroWriter returns a writer of records of schema s, whose JSON text
// (stored as the file's avro.schema) is text. The layout's nodes are the
// nodes of s, so a caller that built s (the protobuf mapping) can walk its
// own tree and the layout together.
func newAvroWriter(out io.Writer, s *schema.Schema, text string, opts *Options) (*AvroWriter, error) {
	if out == nil {
		return nil, errors.New("shred: nil output")
	}
	var o Options
	if opts != nil {
		o = *opts
		o.Meta = opts.Meta.Clone()
	}
	lay, err := layout.New(s, o.Layout)
	if err != nil {
		return nil, fmt.Errorf("shred: %w", err)
	}
	if o.Meta.Has(layout.MetaAvroSchema) {
		return nil, fmt.Errorf("shred: options metadata must not set %s", layout.MetaAvroSchema)
	}
	o.Meta.SetString(layout.MetaAvroSchema, text)
	metas := lay.Metas()
	w, err := format.NewWriter(out, metas, &o.WriterOptions)
	if err != nil {
		return nil, err
	}
	return &AvroWriter{w: w, schema: s, root: lay.Root, prog: compile(lay.Root, nil), cols: lay.Columns, progress: o.Progress,
		metas: metas, wopts: o.WriterOptions, workers: o.Workers, keepOrder: o.KeepMapOrder}, nil
}

// Schema returns the writer's parsed schema.
func (aw *AvroWriter) Schema() *schema.Schema { return aw.schema }

// Columns returns the file's columns.
func (aw *AvroWriter) Columns() []layout.Column { return aw.cols }

// RowCount returns the number of records written.
func (aw *AvroWriter) RowCount() int64 { return aw.w.RowCount() }

// Close writes the file. It does not close the output.
func (aw *AvroWriter) Close() error { return aw.w.Close() }

// Abort discards the file and releases its temporary storage.
func (aw *AvroWriter) Abort() { aw.w.Abort() }

// Write writes one record given as a goavro native value: what goavro's
// decoder returns, or what its encoder accepts (see the typemap package).
// A record that does not match the schema is not written and gets a
// *schema.Error naming the record (counted from the writer's first, 0)
// and the field; writing can go on with the next record.
func (aw *AvroWriter) Write(record any) error {
	if err := aw.w.StartRow(); err != nil {
		return err
	}
	if err := aw.put(aw.root, record, 0); err != nil {
		aw.w.AbortRow()
		return aw.recordError(err)
	}
	return aw.endRow()
}

// put writes the goavro value v of node n. depth counts the arrays and
// maps around n, which index the scratch space for map entries; the
// recursion follows the layout, so it is as deep as the schema and no
// deeper, whatever the value.
func (aw *AvroWriter) put(n *layout.Node, v any, depth int) error {
	w := aw.w
	switch n.Kind {
	case schema.Record:
		m, ok := v.(map[string]any)
		if !ok {
			return fieldpath.New(fmt.Errorf("%w: record %s wants map[string]any, got %T", typemap.ErrValue, n.Schema.Name, v))
		}
		for i, f := range n.Schema.Fields {
			fv, present := m[f.Name]
			if !present {
				if !f.HasDefault {
					return fieldpath.At(fieldpath.New(fmt.Errorf("%w: missing field", typemap.ErrValue)), f.Name)
				}
				var err error
				if fv, err = typemap.DefaultValue(f.Type, f.Default); err != nil {
					return fieldpath.At(fieldpath.New(err), f.Name)
				}
			}
			if err := aw.put(n.Fields[i], fv, depth); err != nil {
				return fieldpath.At(err, f.Name)
			}
		}
		return nil
	case schema.Array:
		list, ok := v.([]any)
		if !ok {
			return fieldpath.New(fmt.Errorf("%w: array wants []any, got %T", typemap.ErrValue, v))
		}
		if err := aw.length(n.Col, int64(len(list))); err != nil {
			return err
		}
		for i, e := range list {
			if err := aw.put(n.Items, e, depth+1); err != nil {
				return fieldpath.At(err, fieldpath.Index(i))
			}
		}
		return nil
	case schema.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return fieldpath.New(fmt.Errorf("%w: map wants map[string]any, got %T", typemap.ErrValue, v))
		}
		// List the keys as bytes, as the binary path finds them, and let
		// writeMapKeys order them.
		entries := aw.mapScratch(depth)
		for k := range m {
			// The key's bytes, not copied: nothing writes to them.
			entries = append(entries, MapEntry{Key: unsafe.Slice(unsafe.StringData(k), len(k))})
		}
		aw.maps[depth] = entries
		entries, err := aw.writeMapKeys(n, entries, true, typemap.ErrValue)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := aw.put(n.Items, m[string(e.Key)], depth+1); err != nil {
				return fieldpath.At(err, fieldpath.Key(string(e.Key)))
			}
		}
		return nil
	case schema.Union:
		b, inner, err := typemap.ResolveUnion(n.Schema, v)
		if err != nil {
			return fieldpath.New(err)
		}
		aw.branch(n, b)
		if br := n.Branches[b]; br != nil {
			return aw.put(br, inner, depth)
		}
		return nil
	}
	stored, err := typemap.ToStored(n.Schema, v)
	if err != nil {
		return fieldpath.New(err)
	}
	switch n.Type {
	case format.Null:
		w.WriteNull(n.Col)
	case format.Boolean:
		w.WriteBool(n.Col, stored.(bool))
	case format.Int:
		w.WriteInt(n.Col, stored.(int32))
	case format.Long:
		w.WriteLong(n.Col, stored.(int64))
	case format.Float:
		w.WriteFloat(n.Col, stored.(float32))
	case format.Double:
		w.WriteDouble(n.Col, stored.(float64))
	case format.String:
		w.WriteString(n.Col, stored.(string))
	case format.Bytes:
		w.WriteBytes(n.Col, stored.([]byte))
	}
	if w.Err() != nil {
		return aw.refused(typemap.ErrValue)
	}
	return nil
}
