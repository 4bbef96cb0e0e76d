package shred

import (
	"fmt"
	"io"
	"slices"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/typemap"
)

// MetaAvroSchema is the file metadata key holding the writer's Avro schema.
const MetaAvroSchema = "avro.schema"

// Options configures an AvroWriter: the Trevni file's codec, checksum,
// block size, memory budget and extra metadata (written before
// avro.schema, as Java orders them).
type Options = format.WriterOptions

// AvroWriter shreds Avro records into a Trevni file.
type AvroWriter struct {
	w      *format.Writer
	schema *schema.Schema
	root   *layout.Node
	cols   []layout.Column

	maps [][]mapEntry // scratch for sorting map entries, one per nesting depth
	keys [][]string
}

// ValueError reports a record that does not match the schema: which row
// (counting from 0) and where in the record.
type ValueError struct {
	Row  int64
	Path string // field path, such as "received[2].sigs[0].algo"
	Err  error
}

func (e *ValueError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("record %d: %v", e.Row, e.Err)
	}
	return fmt.Sprintf("record %d, field %s: %v", e.Row, e.Path, e.Err)
}

// Unwrap returns the underlying error.
func (e *ValueError) Unwrap() error { return e.Err }

// NewAvroWriter returns a writer of records of the Avro schema given as
// JSON text, which it stores as the file's avro.schema exactly as given.
// The file is written to out when Close is called.
func NewAvroWriter(out io.Writer, schemaText string, opts *Options) (*AvroWriter, error) {
	// Data files written by older Java may carry defaults that do not
	// match their fields; they matter only to readers that use them.
	s, err := schema.ParseOptions{AllowInvalidDefaults: true}.Parse(schemaText)
	if err != nil {
		return nil, err
	}
	lay, err := layout.New(s, nil)
	if err != nil {
		return nil, err
	}
	var o Options
	if opts != nil {
		o = *opts
		o.Meta = opts.Meta.Clone()
	}
	if o.Meta.Has(MetaAvroSchema) {
		return nil, fmt.Errorf("shred: options metadata must not set %s", MetaAvroSchema)
	}
	o.Meta.SetString(MetaAvroSchema, schemaText)
	w, err := format.NewWriter(out, lay.Metas(), &o)
	if err != nil {
		return nil, err
	}
	return &AvroWriter{w: w, schema: s, root: lay.Root, cols: lay.Columns}, nil
}

// Schema returns the writer's parsed schema.
func (aw *AvroWriter) Schema() *schema.Schema { return aw.schema }

// Columns returns the file's columns.
func (aw *AvroWriter) Columns() []layout.Column { return aw.cols }

// RowCount returns the number of records written.
func (aw *AvroWriter) RowCount() int64 { return aw.w.RowCount() }

// Write writes one record given as a goavro native value: what goavro's
// decoder returns, or what its encoder accepts (see the typemap package).
// A record that does not match the schema is not written and gets a
// *ValueError; writing can go on with the next record.
func (aw *AvroWriter) Write(record any) error {
	if err := aw.w.StartRow(); err != nil {
		return err
	}
	if err := aw.put(aw.root, record, 0); err != nil {
		aw.w.AbortRow()
		return aw.valueError(err)
	}
	return aw.endRow()
}

func (aw *AvroWriter) endRow() error {
	if err := aw.w.EndRow(); err != nil {
		aw.w.AbortRow()
		return &ValueError{Row: aw.w.RowCount(), Err: err}
	}
	return nil
}

func (aw *AvroWriter) valueError(err error) error {
	ve := &ValueError{Row: aw.w.RowCount()}
	ve.Path, ve.Err = fieldpath.Split(err)
	return ve
}

// Close writes the file. It does not close the output.
func (aw *AvroWriter) Close() error { return aw.w.Close() }

// Abort discards the file and releases its temporary storage.
func (aw *AvroWriter) Abort() { aw.w.Abort() }

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
		w.WriteLength(n.Col, len(list))
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
		for len(aw.keys) <= depth {
			aw.keys = append(aw.keys, nil)
		}
		keys := aw.keys[depth][:0]
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		aw.keys[depth] = keys
		w.WriteLength(n.Col, len(keys))
		for _, k := range keys {
			w.WriteString(n.KeyCol, k)
			if err := aw.put(n.Items, m[k], depth+1); err != nil {
				return fieldpath.At(err, fieldpath.Key(k))
			}
		}
		return nil
	case schema.Union:
		b, inner, err := typemap.ResolveUnion(n.Schema, v)
		if err != nil {
			return fieldpath.New(err)
		}
		for i, col := range n.BranchCols {
			if col < 0 {
				continue
			}
			if i != b {
				w.WriteLength(col, 0)
				continue
			}
			w.WriteLength(col, 1)
			if err := aw.put(n.Branches[i], inner, depth); err != nil {
				return err
			}
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
	return nil
}
