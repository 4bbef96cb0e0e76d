package trevniparquet_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/internal/testing/longtest"
)

// variantSQL draws a random DuckDB expression of a VARIANT: every type
// DuckDB casts to a Variant (integers of each width, doubles and floats
// over their whole range, decimals of every precision and scale, strings
// with quotes, escapes, control characters and non-ASCII text, blobs of
// any bytes, dates before year 1 and after 9999, timestamps with and
// without a zone, of microseconds and nanoseconds, times, UUIDs, nulls),
// and arrays and objects of them nested up to depth.
func variantSQL(r *rand.Rand, depth int) string {
	kinds := 16
	if depth <= 0 {
		kinds = 14
	}
	switch r.IntN(kinds) {
	case 0:
		return "NULL::VARIANT"
	case 1:
		return []string{"true", "false"}[r.IntN(2)] + "::VARIANT"
	case 2:
		types := []struct {
			name string
			bits uint
		}{{"TINYINT", 8}, {"SMALLINT", 16}, {"INTEGER", 32}, {"BIGINT", 64}}
		t := types[r.IntN(len(types))]
		x := int64(r.Uint64()) >> (64 - t.bits)
		if r.IntN(4) == 0 {
			x = []int64{0, -1, math.MinInt64 >> (64 - t.bits), math.MaxInt64 >> (64 - t.bits)}[r.IntN(4)]
		}
		return fmt.Sprintf("(%d)::%s::VARIANT", x, t.name)
	case 3:
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || r.IntN(3) == 0 {
			f = r.NormFloat64() * math.Pow(10, float64(r.IntN(50)-25))
		}
		if r.IntN(8) == 0 {
			f = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e21, 1e-7, 1e-6, 5e-324}[r.IntN(9)]
		}
		return fmt.Sprintf("'%s'::DOUBLE::VARIANT", strconv.FormatFloat(f, 'g', -1, 64))
	case 4:
		f := math.Float32frombits(r.Uint32())
		if f != f {
			f = 1.5
		}
		return fmt.Sprintf("'%s'::FLOAT::VARIANT", strconv.FormatFloat(float64(f), 'g', -1, 32))
	case 5:
		p := 1 + r.IntN(38)
		sc := r.IntN(p + 1)
		digits := make([]byte, p)
		for i := range digits {
			digits[i] = byte('0' + r.IntN(10))
		}
		lit := "0" + string(digits[:p-sc])
		if sc > 0 {
			lit += "." + string(digits[p-sc:])
		}
		if r.IntN(2) == 0 {
			lit = "-" + lit
		}
		return fmt.Sprintf("'%s'::DECIMAL(%d,%d)::VARIANT", lit, p, sc)
	case 6:
		return stringSQL(r) + "::VARIANT"
	case 7:
		var b strings.Builder
		b.WriteString("'")
		for range r.IntN(20) {
			fmt.Fprintf(&b, "\\x%02X", r.IntN(256))
		}
		b.WriteString("'::BLOB::VARIANT")
		return b.String()
	case 8:
		return fmt.Sprintf("make_date(%d, %d, %d)::VARIANT", r.IntN(20000)-3000, 1+r.IntN(12), 1+r.IntN(28))
	case 9, 10:
		t := time.Unix(r.Int64N(400*365*86400)-200*365*86400, r.Int64N(1e9)).UTC()
		if r.IntN(3) == 0 {
			t = t.Truncate(time.Second)
		}
		micros := t.Format("2006-01-02 15:04:05.999999")
		switch r.IntN(4) {
		case 0:
			return fmt.Sprintf("'%s'::TIMESTAMP::VARIANT", micros)
		case 1:
			return fmt.Sprintf("'%s+00'::TIMESTAMPTZ::VARIANT", micros)
		case 2:
			return fmt.Sprintf("'%s'::TIMESTAMP_NS::VARIANT", t.Format("2006-01-02 15:04:05.999999999"))
		}
		return fmt.Sprintf("'%s'::TIME::VARIANT", t.Format("15:04:05.999999"))
	case 11:
		b := make([]byte, 16)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return fmt.Sprintf("'%x-%x-%x-%x-%x'::UUID::VARIANT", b[:4], b[4:6], b[6:8], b[8:10], b[10:])
	case 12, 13:
		return fmt.Sprintf("(%d)::INTEGER::VARIANT", r.IntN(1000))
	case 14:
		var parts []string
		for range r.IntN(5) {
			parts = append(parts, variantSQL(r, depth-1))
		}
		if len(parts) == 0 {
			return "[]::VARIANT[]::VARIANT"
		}
		return "[" + strings.Join(parts, ", ") + "]::VARIANT"
	}
	n := 1 + r.IntN(5)
	if r.IntN(20) == 0 {
		n = 300 // past 255 fields: is_large, two-byte field ids
	}
	var parts []string
	seen := map[string]bool{}
	for range n {
		k := fmt.Sprintf("k%d", r.IntN(3*n))
		if r.IntN(6) == 0 {
			k = []string{"a b", "é", "\"q\"", "z\\"}[r.IntN(4)]
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		parts = append(parts, fmt.Sprintf("'%s': %s", strings.ReplaceAll(k, "'", "''"), variantSQL(r, depth-1)))
	}
	return "{" + strings.Join(parts, ", ") + "}::VARIANT"
}

// stringSQL draws a DuckDB VARCHAR expression: quotes, backslashes,
// control characters, non-ASCII text, short and long (past 63 bytes, a
// Variant's short string).
func stringSQL(r *rand.Rand) string {
	pieces := []string{"'a'", "'iceberg'", "''''", "'\"'", "'\\'", "'é€😀'", "chr(10)", "chr(1)", "chr(31)", "chr(127)", "'/'", "'<'", "chr(8232)"}
	n := r.IntN(6)
	if r.IntN(5) == 0 {
		n = 40
	}
	parts := []string{"''"}
	for range n {
		parts = append(parts, pieces[r.IntN(len(pieces))])
	}
	return "(" + strings.Join(parts, " || ") + ")"
}

// duckNoLeadingZero mends DuckDB's decimals of no integer digits
// (DECIMAL(4,4) 0.9560 written .9560, which JSON does not allow).
var duckNoLeadingZero = regexp.MustCompile(`(^|[\[,:])(-?)\.([0-9])`)

// duckNonFinite quotes the bare NaN and infinities of DuckDB's JSON
// (which JSON has no number for, and our text writes as strings).
var duckNonFinite = regexp.MustCompile(`(^|[\[,:])(-?Infinity|NaN)`)

// Random Variants of every type DuckDB has, written by DuckDB's Parquet
// writer (which shreds a column by the type most of its values have), are
// read as DuckDB reads them (var::JSON), value for value; DuckDB reads a
// Variant null as SQL NULL.
func TestParquetVariantDuckDBWritten(t *testing.T) {
	t.Parallel()
	for seed := range uint64(longtest.Rounds(2, 12)) {
		r := rand.New(rand.NewPCG(seed, 38))
		file := filepath.Join(t.TempDir(), fmt.Sprintf("variants-%d.parquet", seed))
		var rows []string
		for id := range 120 {
			v := variantSQL(r, 3)
			if seed%2 == 1 && r.IntN(4) != 0 {
				// Objects of one shape mostly, for DuckDB to shred.
				v = fmt.Sprintf("{'a': (%d)::INTEGER::VARIANT, 'b': %s::VARIANT, 'c': %s}::VARIANT", r.IntN(100), stringSQL(r), variantSQL(r, 1))
			}
			rows = append(rows, fmt.Sprintf("(%d, %s)", id, v))
		}
		q := strings.ReplaceAll(file, "'", "''")
		res := ducktest.Query(t, "SET TimeZone='UTC'",
			fmt.Sprintf("COPY (SELECT * FROM (VALUES %s) t(id, var)) TO '%s' (FORMAT parquet, ROW_GROUP_SIZE 50)", strings.Join(rows, ", "), q),
			fmt.Sprintf("SELECT id::INTEGER AS id, CASE WHEN var IS NOT NULL THEN var::JSON::VARCHAR END AS j FROM read_parquet('%s')", q),
			fmt.Sprintf("SELECT count(*)::INTEGER FROM parquet_schema('%s') WHERE name = 'typed_value'", q))
		for _, x := range res[1:] {
			if x.Error != "" {
				t.Fatalf("seed %d: DuckDB: %s", seed, x.Error)
			}
		}
		if n := res[3].Rows[0][0].(float64); seed%2 == 1 && n < 4 {
			t.Errorf("seed %d: DuckDB shredded %v columns, want the objects' fields shredded", seed, n)
		}
		duck := map[int64]*string{}
		for _, row := range res[2].Rows {
			var s *string
			if row[1] != nil {
				text := duckNonFinite.ReplaceAllString(row[1].(string), `$1"$2"`)
				text = duckNoLeadingZero.ReplaceAllString(text, `${1}${2}0.$3`)
				s = &text
			}
			duck[int64(row[0].(float64))] = s
		}
		got, _, err := variantRows(t, file)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(got) != len(duck) {
			t.Fatalf("seed %d: %d rows, DuckDB %d", seed, len(got), len(duck))
		}
		for id, g := range got {
			d := duck[id]
			if _, _, diff := compareDuck(map[int64]*string{id: g}, map[int64]*string{id: d}); diff != "" {
				t.Errorf("seed %d, row %d (%s): %s", seed, id, rows[id], diff)
			}
		}
	}
}
