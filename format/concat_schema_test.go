package format_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
)

// intFile writes a file of one int column x holding values, with the
// given file metadata and column metadata.
func intFile(t *testing.T, fileMeta, colMeta map[string]string, values ...int32) []byte {
	t.Helper()
	var fm, cm format.MetaData
	for k, v := range fileMeta {
		fm.SetString(k, v)
	}
	for k, v := range colMeta {
		cm.SetString(k, v)
	}
	var buf bytes.Buffer
	w, err := format.NewWriter(&buf, []format.ColumnMeta{{Name: "x", Type: format.Int, Meta: cm}}, &format.WriterOptions{Meta: fm})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		if err := w.WriteRow(v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestConcatSchemas: parts whose columns are alike but whose rows mean
// other things (an Avro int and an enum are both int columns) are not
// joined, in either order, and the error names the first difference;
// the same schema written otherwise is joined.
func TestConcatSchemas(t *testing.T) {
	avro := func(text string) map[string]string { return map[string]string{"avro.schema": text} }
	intSchema := `{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}`
	enumSchema := `{"type":"record","name":"R","fields":[{"name":"x","type":{"type":"enum","name":"E","symbols":["X","Y"]}}]}`
	ints := intFile(t, avro(intSchema), nil, 1, 2)
	enums := intFile(t, avro(enumSchema), nil, 0, 1)
	sameInts := intFile(t, avro(`{"name": "R", "type": "record", "doc": "d",
		"fields": [{"type": {"type": "int"}, "name": "x", "default": 0}]}`), nil, 3)
	bare := intFile(t, nil, nil, 4)
	tagged := intFile(t, nil, map[string]string{"unit": "cm"}, 5)
	for _, tc := range []struct {
		name  string
		parts [][]byte
		want  string // "" when they join
	}{
		{"int then enum", [][]byte{ints, enums}, `x: int, then enum E`},
		{"enum then int", [][]byte{enums, ints}, `x: enum E, then int`},
		{"the same schema written otherwise", [][]byte{ints, sameInts, ints}, ""},
		{"schema then none", [][]byte{ints, bare}, "it has no avro.schema, the first part has"},
		{"none then schema", [][]byte{bare, ints}, "it has avro.schema, the first part has no"},
		{"column metadata", [][]byte{bare, tagged}, `column 0 ("x"): metadata "unit" is "cm", in the first part ""`},
		{"no metadata, other statistics", [][]byte{bare, intFile(t, nil, nil, 9)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ins := make([]*format.Reader, len(tc.parts))
			var rows int64
			for i, p := range tc.parts {
				ins[i] = openBytes(t, p)
				rows += ins[i].RowCount()
			}
			var out bytes.Buffer
			n, err := format.Concat(context.Background(), &out, ins, &format.ConcatOptions{SameSchema: sameAvro})
			if tc.want == "" {
				if err != nil || n != rows {
					t.Fatalf("%d rows, %v", n, err)
				}
				if rd := openBytes(t, out.Bytes()); rd.Meta().GetString("avro.schema") != ins[0].Meta().GetString("avro.schema") {
					t.Errorf("the output's schema is not the first part's")
				}
				return
			}
			var pe *format.PartError
			if !errors.Is(err, format.ErrUsage) || !errors.As(err, &pe) || pe.Part != 1 || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want part 1: %s", err, tc.want)
			}
			if out.Len() != 0 {
				t.Errorf("%d bytes written", out.Len())
			}
		})
	}
}

// sameAvro is a ConcatOptions.SameSchema comparing the texts as Avro
// schemas, as the front door does.
func sameAvro(a, b []byte) error {
	sa, err := schema.Parse(string(a))
	if err != nil {
		return err
	}
	sb, err := schema.Parse(string(b))
	if err != nil {
		return err
	}
	if d := schema.Difference(sa, sb); d != "" {
		return fmt.Errorf("the schemas differ: %s", d)
	}
	return nil
}

// Without SameSchema, texts that differ are refused even when they mean
// the same: format compares the metadata as bytes.
func TestConcatSchemaTextsByDefault(t *testing.T) {
	avro := func(text string) map[string]string { return map[string]string{"avro.schema": text} }
	a := intFile(t, avro(`{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}`), nil, 1)
	b := intFile(t, avro(`{"type": "record", "name": "R", "fields": [{"name": "x", "type": "int"}]}`), nil, 2)
	_, err := format.Concat(context.Background(), io.Discard, []*format.Reader{openBytes(t, a), openBytes(t, b)}, nil)
	if !errors.Is(err, format.ErrUsage) || !strings.Contains(err.Error(), "avro.schema differs") {
		t.Fatalf("texts that differ, without SameSchema: %v", err)
	}
	n, err := format.Concat(context.Background(), io.Discard, []*format.Reader{openBytes(t, a), openBytes(t, a)}, nil)
	if err != nil || n != 2 {
		t.Fatalf("the same text: %d rows, %v", n, err)
	}
}
