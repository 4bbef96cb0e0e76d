package coltype_test

import (
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/coltype"
)

// Every simple Avro type takes the column type Java's trevni-avro gives it
// (AvroColumnator); a complex type takes none.
func TestOf(t *testing.T) {
	for text, want := range map[string]format.ValueType{
		`"null"`: format.Null, `"boolean"`: format.Boolean, `"int"`: format.Int, `"long"`: format.Long,
		`"float"`: format.Float, `"double"`: format.Double, `"string"`: format.String, `"bytes"`: format.Bytes,
		`{"type":"enum","name":"E","symbols":["A"]}`:             format.Int,
		`{"type":"fixed","name":"F","size":4}`:                   format.Bytes,
		`{"type":"int","logicalType":"date"}`:                    format.Int,
		`{"type":"bytes","logicalType":"decimal","precision":4}`: format.Bytes,
	} {
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := coltype.Of(s); !ok || got != want {
			t.Errorf("%s: %v, %v; want %v", text, got, ok, want)
		}
	}
	for _, text := range []string{`{"type":"array","items":"int"}`, `{"type":"map","values":"int"}`, `["null","int"]`, `{"type":"record","name":"R","fields":[]}`} {
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := coltype.Of(s); ok {
			t.Errorf("%s: %v, a column type for a complex type", text, got)
		}
	}
}
