package schema_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// FuzzParse parses arbitrary text as a schema. Whatever parses must write
// back as text that parses to the same canonical form, and must lay out as
// columns or fail with one of the layout's errors; nothing may panic.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../testdata/interop/*/*.avsc")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(`["null",{"type":"array","items":["null",{"type":"map","values":"int"}]}]`)
	f.Add(`{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"fixed","name":"F","size":3},"default":"abc"}]}`)
	f.Add(`{"type":"int","x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`)
	f.Add(`{"type":"record","name":"R1","fields":[{"name":"a","type":{"type":"record","name":"R0","fields":[]}},{"name":"b","type":"R0"}]}`)
	f.Fuzz(func(t *testing.T, text string) {
		s, err := schema.ParseWith(text, &schema.ParseOptions{MaxDepth: 64})
		if err != nil {
			var se *schema.Error
			if !errors.As(err, &se) || se.Record != -1 {
				t.Fatalf("error %v is not a schema error", err)
			}
			return
		}
		again, err := schema.ParseWith(s.String(), &schema.ParseOptions{MaxDepth: 64, AllowInvalidDefaults: true})
		if err != nil {
			t.Fatalf("written back as %s, which does not parse: %v", s.String(), err)
		}
		if again.Canonical() != s.Canonical() {
			t.Fatalf("canonical form changed: %s, then %s", s.Canonical(), again.Canonical())
		}
		if _, err := layout.New(s, &layout.Options{MaxColumns: 4096}); err != nil &&
			!errors.Is(err, layout.ErrRecursive) && !errors.Is(err, layout.ErrTooLarge) {
			t.Fatalf("layout: %v", err)
		}
	})
}
