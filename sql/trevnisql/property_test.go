package trevnisql

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni"
)

// column is a column of a random schema: its Avro type, its DuckDB type,
// and a generator of its values (nil for a null).
type column struct {
	name     string
	avro     string
	duck     string
	nullable bool
	numeric  bool // sum applies
	gen      func(r *rand.Rand) any
}

// columnKinds are the column types the random schemas draw from. Values
// are drawn from small domains so that GROUP BY and count(DISTINCT) have
// groups.
func columnKinds() []column {
	return []column{
		{avro: `"int"`, duck: "INTEGER", numeric: true, gen: func(r *rand.Rand) any { return int32(r.IntN(200) - 100) }},
		{avro: `"long"`, duck: "BIGINT", numeric: true, gen: func(r *rand.Rand) any { return r.Int64N(1<<40) - 1<<39 }},
		{avro: `"double"`, duck: "DOUBLE", gen: func(r *rand.Rand) any { return float64(r.IntN(1000)) / 8 }},
		{avro: `"string"`, duck: "VARCHAR", gen: func(r *rand.Rand) any { return fmt.Sprintf("s%03d", r.IntN(50)) }},
		{avro: `"boolean"`, duck: "BOOLEAN", gen: func(r *rand.Rand) any { return r.IntN(2) == 0 }},
		{avro: `["null","long"]`, duck: "BIGINT", nullable: true, numeric: true, gen: func(r *rand.Rand) any {
			if r.IntN(4) == 0 {
				return nil
			}
			return int64(r.IntN(30))
		}},
		{avro: `{"type":"int","logicalType":"date"}`, duck: "DATE", gen: func(r *rand.Rand) any {
			return time.Date(2020, 1, 1+r.IntN(60), 0, 0, 0, 0, time.UTC)
		}},
		{avro: `{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}`, duck: "DECIMAL(9,2)", numeric: true, gen: func(r *rand.Rand) any {
			return big.NewRat(r.Int64N(20000)-10000, 100)
		}},
		{avro: `["null","string"]`, duck: "VARCHAR", nullable: true, gen: func(r *rand.Rand) any {
			if r.IntN(3) == 0 {
				return nil
			}
			return fmt.Sprintf("n%d", r.IntN(20))
		}},
	}
}

// randomSchema draws 2 to 6 columns.
func randomSchema(r *rand.Rand) []column {
	kinds := columnKinds()
	n := 2 + r.IntN(5)
	cols := make([]column, n)
	for i := range cols {
		cols[i] = kinds[r.IntN(len(kinds))]
		cols[i].name = fmt.Sprintf("c%d", i)
	}
	return cols
}

// writeData writes rows random records of cols as parts Trevni files
// (data-N.trv) and as one JSON lines file (data.jsonl) under dir.
func writeData(t *testing.T, r *rand.Rand, dir string, cols []column, rows, parts int) {
	t.Helper()
	var fields []string
	for _, c := range cols {
		fields = append(fields, fmt.Sprintf(`{"name":%q,"type":%s}`, c.name, c.avro))
	}
	schemaText := `{"type":"record","name":"R","fields":[` + strings.Join(fields, ",") + `]}`
	var js strings.Builder
	for p := range parts {
		w, err := trevni.Create(context.Background(), filepath.Join(dir, fmt.Sprintf("data-%d.trv", p)), schemaText, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := rows / parts
		if p == parts-1 {
			n = rows - n*(parts-1)
		}
		for range n {
			rec := map[string]any{}
			plain := map[string]any{}
			for _, c := range cols {
				v := c.gen(r)
				switch x := v.(type) {
				case time.Time:
					plain[c.name] = x.Format(time.DateOnly)
				case *big.Rat:
					plain[c.name] = x.FloatString(2)
				default:
					plain[c.name] = v
				}
				if c.nullable && v != nil {
					branch := "long"
					if _, ok := v.(string); ok {
						branch = "string"
					}
					rec[c.name] = map[string]any{branch: v}
				} else {
					rec[c.name] = v
				}
			}
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(plain)
			js.Write(b)
			js.WriteByte('\n')
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "data.jsonl"), []byte(js.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// randomQuery draws an aggregate query over the table named "T" and, when
// its WHERE has one, the same filter in package predicate's grammar.
func randomQuery(r *rand.Rand, cols []column) (q, filter string) {
	var aggs []string
	for range 1 + r.IntN(4) {
		c := cols[r.IntN(len(cols))]
		switch k := r.IntN(5); {
		case k == 0:
			aggs = append(aggs, "count(*)")
		case k == 1 && c.numeric:
			aggs = append(aggs, fmt.Sprintf("sum(%s)", c.name))
		case k == 2:
			aggs = append(aggs, fmt.Sprintf("min(%s)", c.name))
		case k == 3:
			aggs = append(aggs, fmt.Sprintf("max(%s)", c.name))
		default:
			aggs = append(aggs, fmt.Sprintf("count(DISTINCT %s)", c.name))
		}
	}
	q = "SELECT "
	group := ""
	if r.IntN(2) == 0 {
		group = cols[r.IntN(len(cols))].name
		q += group + ", "
	}
	q += strings.Join(aggs, ", ") + " FROM T"
	if r.IntN(2) == 0 {
		c := cols[r.IntN(len(cols))]
		switch {
		case c.nullable && r.IntN(2) == 0:
			q += fmt.Sprintf(" WHERE %s IS NOT NULL", c.name)
			filter = c.name + " IS NOT NULL"
		case c.duck == "VARCHAR":
			q += fmt.Sprintf(" WHERE %s < 's025'", c.name)
			filter = c.name + " < 's025'"
		case c.duck == "BOOLEAN":
			q += fmt.Sprintf(" WHERE %s", c.name)
			filter = c.name + " = TRUE"
		case c.duck == "DATE":
			q += fmt.Sprintf(" WHERE %s > DATE '2020-01-20'", c.name)
		case c.duck == "DECIMAL(9,2)":
			q += fmt.Sprintf(" WHERE %s > 10", c.name)
		default:
			q += fmt.Sprintf(" WHERE %s > 10", c.name)
			filter = c.name + " > 10"
		}
	}
	if group != "" {
		q += " GROUP BY " + group + " ORDER BY " + group + " NULLS FIRST"
	}
	return q, filter
}

// queryRows runs q and returns its rows as text.
func queryRows(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(vals...))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// TestQueriesMatchJSON runs random aggregate queries over random data
// sets read through trevni_scan and checks each answer against DuckDB's
// answer to the same query over the same records read from JSON lines
// by read_json, with the same column types.
func TestQueriesMatchJSON(t *testing.T) {
	ctx := context.Background()
	rounds := []struct{ rows, parts, threads int }{
		{0, 1, 0}, {1, 1, 0}, {37, 1, 1}, {500, 3, 0}, {2049, 2, 4}, {150_000, 1, 4}, {140_000, 2, 3},
	}
	for round, rd := range rounds {
		r := rand.New(rand.NewPCG(uint64(round), 25))
		dir := t.TempDir()
		cols := randomSchema(r)
		writeData(t, r, dir, cols, rd.rows, rd.parts)
		db, err := Open(ctx, &Options{Threads: rd.threads, Tables: []Table{{"T", filepath.Join(dir, "*.trv")}}})
		if err != nil {
			t.Fatal(err)
		}
		var spec []string
		for _, c := range cols {
			spec = append(spec, fmt.Sprintf("%s: '%s'", c.name, c.duck))
		}
		if _, err := db.Exec(fmt.Sprintf("CREATE VIEW J AS SELECT * FROM read_json(%s, columns={%s}, format='newline_delimited')", quoteString(filepath.Join(dir, "data.jsonl")), strings.Join(spec, ", "))); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRow("SELECT count(*) FROM T").Scan(&n); err != nil || n != rd.rows {
			t.Fatalf("round %d: count(*) %d, %v: want %d", round, n, err, rd.rows)
		}
		for range 12 {
			q, filter := randomQuery(r, cols)
			got := queryRows(t, db.DB, q)
			want := queryRows(t, db.DB, strings.Replace(q, "FROM T", "FROM J", 1))
			if !slices.Equal(got, want) {
				t.Errorf("round %d (%d rows, %d parts): %s\n got %v\nwant %v", round, rd.rows, rd.parts, q, got, want)
			}
			if filter == "" {
				continue
			}
			// The same filter given to the scan, the WHERE left out.
			fq, _, _ := strings.Cut(q, " WHERE ")
			if _, after, ok := strings.Cut(q, " GROUP BY "); ok {
				fq += " GROUP BY " + after
			}
			fq = strings.Replace(fq, "FROM T", fmt.Sprintf("FROM trevni_scan(%s, filter := %s)", quoteString(filepath.Join(dir, "*.trv")), quoteString(filter)), 1)
			if got := queryRows(t, db.DB, fq); !slices.Equal(got, want) {
				t.Errorf("round %d (%d rows, %d parts): %s\n got %v\nwant %v", round, rd.rows, rd.parts, fq, got, want)
			}
		}
		db.Close()
	}
}
