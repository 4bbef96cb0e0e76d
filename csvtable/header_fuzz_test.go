package csvtable

import (
	"encoding/csv"
	"errors"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/schema"
)

// FuzzHeader checks the header's column count as its bytes go by against
// encoding/csv's count of the same text: a limit of exactly that many
// columns reads the header as encoding/csv does, and one less refuses it
// with an *Error wrapping schema.ErrTooLarge. Any text, any delimiter.
func FuzzHeader(f *testing.F) {
	for _, s := range []string{"a,b,c\n1,2,3\n", "\n\r\n\"a,b\",\"c\nd\",e\n", "\"a\"\"\",b\r\n", "a;b;c\n", "x§y§z\n", "a,\"b\"c,d\n", "\"open,b\n", ""} {
		f.Add(s, ',')
		f.Add(s, '§')
	}
	f.Add("a\tb\n", '\t')
	f.Fuzz(func(t *testing.T, text string, comma rune) {
		if checkComma(comma) != nil || comma == 0 {
			return
		}
		cr := csv.NewReader(strings.NewReader(text))
		cr.Comma = comma
		cr.FieldsPerRecord = -1
		want, werr := cr.Read()
		if werr != nil || len(want) > 10000 {
			return // encoding/csv refuses it: our reader does too, for its own reason or this one
		}
		n := len(want)
		rd, err := NewReader(strings.NewReader(text), comma, &ReaderOptions{MaxColumns: n})
		if err == nil && len(rd.Header()) != n {
			t.Fatalf("%q: %d header columns, encoding/csv %d", text, len(rd.Header()), n)
		}
		if err != nil && errors.Is(err, schema.ErrTooLarge) {
			t.Fatalf("%q at its own count %d: %v", text, n, err)
		}
		if n == 1 {
			return
		}
		_, err = NewReader(strings.NewReader(text), comma, &ReaderOptions{MaxColumns: n - 1})
		var e *Error
		if !errors.Is(err, schema.ErrTooLarge) || !errors.As(err, &e) || e.Column != n {
			// Bad UTF-8 in a name or a duplicate is found after the
			// count only when the count fits: here it must not.
			t.Fatalf("%q (delimiter %q) with limit %d: %v", text, comma, n-1, err)
		}
	})
}
