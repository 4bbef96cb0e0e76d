package trevniparquet_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/trevniparquet"
)

// variantCase is a case of parquet-testing's shredded_variant/cases.json.
type variantCase struct {
	Number       int       `json:"case_number"`
	File         string    `json:"parquet_file"`
	VariantFile  string    `json:"variant_file"`
	VariantFiles []*string `json:"variant_files"`
	Error        string    `json:"error_message"`
	Notes        string    `json:"notes"`
}

func variantCases(t *testing.T) []variantCase {
	t.Helper()
	raw, err := os.ReadFile("testdata/variant/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []variantCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// variantRows converts a Parquet file of columns id and var as fromparquet
// does and returns var's text by id (nil for a null var), after checking
// that trevni.Open of the Parquet file itself reads the same records.
func variantRows(t *testing.T, file string) (map[int64]*string, *schema.Schema, error) {
	t.Helper()
	s, recs, err := fromParquetSuite(t, file, nil)
	if err != nil {
		return nil, nil, err
	}
	if direct := readAll(t, file); !reflect.DeepEqual(direct, recs) {
		t.Errorf("%s: trevni.Open reads %v, fromparquet %v", file, direct, recs)
	}
	out := map[int64]*string{}
	for _, r := range recs {
		m := r.(map[string]any)
		idv := m["id"]
		if u, ok := idv.(map[string]any); ok {
			idv = u["int"]
		}
		id := reflect.ValueOf(idv).Int()
		v := m["var"]
		if u, ok := v.(map[string]any); ok {
			v = u["string"]
		}
		switch x := v.(type) {
		case nil:
			out[id] = nil
		case string:
			out[id] = &x
		default:
			t.Fatalf("%s: var %T %v", file, v, v)
		}
	}
	return out, s, nil
}

// duckVariants returns DuckDB's reading of the file's var as JSON text
// (var::JSON) by id, or DuckDB's error; one fresh DuckDB a file, as a
// Variant it fails on leaves it unusable.
func duckVariants(t *testing.T, file string) (map[int64]*string, string) {
	t.Helper()
	q := strings.ReplaceAll(file, "'", "''")
	// DuckDB casts a NULL VARIANT to the JSON text null: var IS NULL
	// tells them apart.
	r := ducktest.Query(t, fmt.Sprintf("SELECT id::INTEGER AS id, CASE WHEN var IS NOT NULL THEN var::JSON::VARCHAR END AS j FROM read_parquet('%s')", q))[0]
	if r.Error != "" {
		line, _, _ := strings.Cut(r.Error, "\n")
		return nil, line
	}
	out := map[int64]*string{}
	for _, row := range r.Rows {
		id := int64(row[0].(float64))
		if row[1] == nil {
			out[id] = nil
			continue
		}
		s := row[1].(string)
		out[id] = &s
	}
	return out, ""
}

// jsonTree decodes JSON text with its numbers as exact rationals.
func jsonTree(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("text after the value")
	}
	return exactNumbers(v), nil
}

func exactNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(x)); ok {
			return r
		}
	case []any:
		for i := range x {
			x[i] = exactNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = exactNumbers(x[k])
		}
	}
	return v
}

// sameVariant says whether our JSON text and DuckDB's hold the same
// values: numbers compared exactly whatever their notation (DuckDB writes
// 1e21, Go-minded readers 1e+21), and a TIMESTAMPTZ of nanoseconds, which
// DuckDB truncates to microseconds (toward 1970: 1957's .123456789
// becomes .123457), within a microsecond. Every other string the same.
func sameVariant(ours, duck string) (bool, error) {
	a, err := jsonTree(ours)
	if err != nil {
		return false, fmt.Errorf("ours %s: %w", ours, err)
	}
	b, err := jsonTree(duck)
	if err != nil {
		return false, fmt.Errorf("DuckDB's %s: %w", duck, err)
	}
	return sameTree(a, b), nil
}

func sameTree(a, b any) bool {
	switch x := a.(type) {
	case *big.Rat:
		y, ok := b.(*big.Rat)
		return ok && x.Cmp(y) == 0
	case string:
		y, ok := b.(string)
		return ok && (x == y || sameInstant(x, y))
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameTree(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k := range x {
			if !sameTree(x[k], y[k]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// sameInstant says whether ours, a TIMESTAMPTZ of nanoseconds, and
// DuckDB's of microseconds lie within a microsecond.
func sameInstant(ours, duck string) bool {
	const layout = "2006-01-02 15:04:05.999999999-07"
	if !strings.HasSuffix(ours, "+00") || len(ours) != len("2024-11-07 12:33:54.123456789+00") {
		return false
	}
	a, err1 := time.Parse(layout, ours)
	b, err2 := time.Parse(layout, duck)
	d := a.Sub(b)
	return err1 == nil && err2 == nil && d > -time.Microsecond && d < time.Microsecond
}

// variantChoices are the cases whose reading is ours to choose, and what
// we chose: the three parquet-testing marks INVALID ("implementations can
// choose to error, or read the shredded value") are refused, a shredded
// field also present in the residual value (43, 125) as the spec's
// "engines should fail" says, an optional shredded field group (84) as
// arrow-go refuses it.
var variantChoices = map[int]string{
	43:  "typed_value.b), which the Variant shredding spec forbids",
	84:  "column var.typed_value.a: a shredded Variant object field that is not a required group",
	125: "typed_value.b), which the Variant shredding spec forbids",
}

// Every file of parquet-testing's shredded_variant (testdata/variant) is
// read as the JSON text of its Variants: its values are those of the
// case's unshredded .variant.bin files (decoded by the same decoder: the
// shredding put back) and DuckDB's var::JSON, value for value where
// DuckDB reads the file; the error cases are errors naming the column,
// and the row where the data is at fault.
func TestParquetVariantAsDuckDB(t *testing.T) {
	t.Parallel()
	dir := "testdata/variant"
	sameText, sameValues, duckRefuses, duckReadsError := 0, 0, 0, 0
	for _, c := range variantCases(t) {
		if c.File == "" {
			continue // case 3: no file
		}
		file := filepath.Join(dir, c.File)
		got, s, err := variantRows(t, file)
		duck, duckErr := duckVariants(t, file)
		if c.Error != "" || variantChoices[c.Number] != "" {
			if err == nil {
				t.Errorf("case %d (%s): read, but it is an error case (%s%s)", c.Number, c.File, c.Error, c.Notes)
				continue
			}
			want := variantChoices[c.Number]
			if want == "" {
				want = "Parquet"
			}
			if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "column var") {
				t.Errorf("case %d: %v, want the column and %q in it", c.Number, err, want)
			}
			if duckErr == "" {
				duckReadsError++
				t.Logf("case %d: an error case (%s%s) DuckDB reads: %v; ours: %v", c.Number, c.Error, c.Notes, derefAll(duck), err)
			}
			continue
		}
		if err != nil {
			t.Errorf("case %d (%s): %v", c.Number, c.File, err)
			continue
		}
		if c.Number == 1 {
			f := s.Field("var")
			if in := f.Type.Branches; len(in) != 2 || in[1].Kind != schema.String || fmt.Sprint(in[1].Props) != fmt.Sprint([]schema.Property{{Key: trevniparquet.VariantProp, Value: trevniparquet.VariantJSON}}) {
				t.Errorf("case 1: var's Avro schema %s", f.Type)
			}
			if s.Name != "table" || s.Field("id").Type.Kind != schema.Int {
				t.Errorf("case 1: not parquet-avro's stored schema: %s", s)
			}
		}
		// The unshredded Variants of the case.
		bins := c.VariantFiles
		if c.VariantFile != "" {
			bins = []*string{&c.VariantFile}
		}
		if len(bins) != len(got) {
			t.Errorf("case %d: %d rows, %d variant files", c.Number, len(got), len(bins))
			continue
		}
		ids := sortedIDs(got)
		for k, b := range bins {
			id, g := ids[k], got[ids[k]]
			if b == nil {
				if g != nil {
					t.Errorf("case %d, id %d: %s, want null", c.Number, id, *g)
				}
				continue
			}
			raw, err := os.ReadFile(filepath.Join(dir, *b))
			if err != nil {
				t.Fatal(err)
			}
			want, err := trevniparquet.VariantJSONText(raw)
			if err != nil {
				t.Errorf("case %d: %s: %v", c.Number, *b, err)
				continue
			}
			if g == nil || *g != want {
				t.Errorf("case %d, id %d: %v, the unshredded Variant %s", c.Number, id, deref(g), want)
			}
		}
		if duckErr != "" {
			duckRefuses++
			t.Logf("case %d: DuckDB refuses it (%s); ours %v", c.Number, duckErr, derefAll(got))
			continue
		}
		if text, values, diff := compareDuck(got, duck); diff != "" {
			t.Errorf("case %d (%s): %s", c.Number, c.File, diff)
		} else if text {
			sameText++
		} else if values {
			sameValues++
			t.Logf("case %d: the same values as DuckDB, another text: ours %v, DuckDB %v", c.Number, derefAll(got), derefAll(duck))
		}
	}
	t.Logf("DuckDB's text: %d files; its values in other text: %d; DuckDB refuses %d valid files; reads %d error cases", sameText, sameValues, duckRefuses, duckReadsError)
}

// compareDuck compares our rows with DuckDB's: the same text, the same
// values, or how they differ.
func compareDuck(got, duck map[int64]*string) (text, values bool, diff string) {
	if len(got) != len(duck) {
		return false, false, fmt.Sprintf("%d rows, DuckDB %d", len(got), len(duck))
	}
	text, values = true, true
	for id, g := range got {
		d, ok := duck[id]
		switch {
		case !ok:
			return false, false, fmt.Sprintf("id %d: DuckDB has none", id)
		case d == nil && g != nil && *g == "null":
			// DuckDB reads the Variant null as SQL NULL (var IS NULL);
			// the unshredded Variant of the case is the Variant null.
			text = false
		case g == nil || d == nil:
			if g != d {
				return false, false, fmt.Sprintf("id %d: ours %v, DuckDB %v", id, deref(g), deref(d))
			}
		case *g != *d:
			text = false
			same, err := sameVariant(*g, *d)
			if err != nil || !same {
				return false, false, fmt.Sprintf("id %d: ours %s, DuckDB %s (%v)", id, *g, *d, err)
			}
		}
	}
	return text, values, ""
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func sortedIDs(m map[int64]*string) []int64 {
	var ids []int64
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

func derefAll(m map[int64]*string) []any {
	var out []any
	for _, id := range sortedIDs(m) {
		out = append(out, deref(m[id]))
	}
	return out
}
