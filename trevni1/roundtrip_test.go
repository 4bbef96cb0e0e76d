package trevni1

import (
	"errors"
	"testing"

	"github.com/trevni-go/trevni/schema"
)

// Schemas version 1 cannot express are refused with the field's path.
func TestLayoutRefusals(t *testing.T) {
	for _, tc := range []struct{ avsc, path string }{
		{`{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"S","fields":[{"name":"u","type":["int","string"]}]}}]}`, "a.u"},
		{`{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"map","values":["null","int","long"]}}]}`, "m.value"},
		{`{"type":"record","name":"R","fields":[{"name":"e","type":{"type":"array","items":{"type":"record","name":"E","fields":[]}}}]}`, "e"},
		{`{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}`, "next"},
		{`"int"`, ""},
	} {
		_, err := Layout(tc.avsc)
		var se *schema.Error
		if !errors.As(err, &se) || se.Path != tc.path {
			t.Errorf("%s: got %v, want an error at %q", tc.avsc, err, tc.path)
		}
	}
}
