package trevni

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/csvtable"
	"github.com/trevni-go/trevni/schema"
)

// Random flat records of CLMN's four types, written as CLMN parts and as
// Trevni 2 parts of the Avro schema a CLMN file is read as, read through
// the front door with random filters, offsets, row ranges and limits, on
// one worker and on three: the CLMN parts, read in place through their
// column source (several blocks a column), write byte for byte what the
// Trevni 2 parts write, and match as many records.
func TestCLMNPartsProperty(t *testing.T) {
	ctx := context.Background()
	var compared, clean, blocks int
	for seed := range uint64(18) {
		r := rand.New(rand.NewPCG(seed, 41))
		fields := make([]csvtable.Field, 1+r.IntN(5))
		types := []clmn.Type{clmn.Int32, clmn.Int64, clmn.Float64, clmn.String}
		kinds := make([]clmn.Type, len(fields))
		cols := make([]clmn.Column, len(fields))
		for i := range fields {
			kinds[i] = types[r.IntN(len(types))]
			cols[i] = clmn.Column{Name: fmt.Sprintf("c%d", i), Type: kinds[i]}
		}
		rd0 := emptyCLMN(t, cols)
		fields = csvtable.CLMNFields(rd0)
		text := csvtable.AvroSchema("Row", fields)
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		dir1, dir2 := t.TempDir(), t.TempDir()
		var recs []any
		for p := range 1 + int(seed%3) {
			n := r.IntN(1500)
			if seed%3 == 0 {
				// Past the 64 KiB of Trevni 2 encoding of a source block
				// (records.go's sourceBlockSize) for longs, doubles and
				// strings: columns of several blocks.
				n = 7000 + r.IntN(4000)
			}
			rows := make([][]any, n)
			for i := range rows {
				rows[i] = make([]any, len(kinds))
				rec := map[string]any{}
				for c, k := range kinds {
					v := clmnValue(r, k)
					rows[i][c] = v
					if b, ok := v.([]byte); ok {
						rec[fields[c].Name] = string(b)
					} else {
						rec[fields[c].Name] = v
					}
				}
				recs = append(recs, rec)
			}
			var buf bytes.Buffer
			w, err := clmn.NewWriter(&buf, cols, &clmn.WriterOptions{Level: []int{0, 1, 6}[r.IntN(3)], TempDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			w2, err := Create(ctx, filepath.Join(dir2, fmt.Sprintf("p%d.trv", p)), text, &WriteOptions{BlockSize: 64 + r.IntN(4)*300, Codec: []Codec{NoCodec, Deflate}[r.IntN(2)]})
			if err != nil {
				t.Fatal(err)
			}
			for i, row := range rows {
				for c, v := range row {
					switch v := v.(type) {
					case int32:
						w.WriteInt32(c, v)
					case int64:
						w.WriteInt64(c, v)
					case float64:
						w.WriteFloat64(c, v)
					case []byte:
						w.WriteString(c, v)
					}
				}
				if err := w.EndRow(); err != nil {
					t.Fatal(err)
				}
				if err := w2.Write(recs[len(recs)-n+i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := w2.Close(); err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(dir1, fmt.Sprintf("p%d.clmn", p))
			if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ds1, err := Open(ctx, dir1, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		ds2, err := Open(ctx, dir2, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, p := range ds1.Parts() {
			data, err := os.ReadFile(p.Name())
			if err != nil {
				t.Fatal(err)
			}
			crd, err := clmn.NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			// The reader the front door makes of a CLMN part.
			rd, err := csvtable.CLMNColumns(crd, nil, sourceBlockSize(crd.NumColumns()))
			if err != nil {
				t.Fatal(err)
			}
			for c := range rd.NumColumns() {
				if b, _ := rd.Blocks(c); len(b) > 1 {
					blocks++
					break
				}
			}
		}
		exprs := compiledExprs(t, r, s, recs)
		for k := range 4 {
			o := drawReadOptions(t, r, exprs, k, ds2.RowCount())
			out := outputs[(k+int(seed))%len(outputs)]
			want := writeWith(t, ctx, ds2, o, 1, 0, out.write)
			for _, w := range []int{1, 3} {
				got := writeWith(t, ctx, ds1, o, w, 1+r.Int64N(300), out.write)
				if d := sameAcrossFormats(want, got); d != "" {
					t.Fatalf("seed %d, %s, %+v, %d workers: %s", seed, out.name, o, w, d)
				}
				compared++
				if got.err == nil && len(got.out) > 0 {
					clean++
				}
			}
		}
	}
	t.Logf("%d comparisons (%d read without an error), %d parts with columns of several blocks", compared, clean, blocks)
	if compared < 100 || clean < compared/2 || blocks < 3 {
		t.Fatalf("only %d comparisons (%d clean), %d parts of several blocks", compared, clean, blocks)
	}
}

// emptyCLMN writes a CLMN file of columns cols and no rows, and opens it.
func emptyCLMN(t *testing.T, cols []clmn.Column) *clmn.Reader {
	t.Helper()
	var buf bytes.Buffer
	w, err := clmn.NewWriter(&buf, cols, &clmn.WriterOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := clmn.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// clmnValue returns a random value of CLMN type k, extremes included: an
// int32, int64 or float64, or a string's UTF-8 bytes.
func clmnValue(r *rand.Rand, k clmn.Type) any {
	switch k {
	case clmn.Int32:
		return []int32{0, -1, math.MaxInt32, math.MinInt32, int32(r.Uint32()), int32(r.IntN(100))}[r.IntN(6)]
	case clmn.Int64:
		return []int64{0, -1, math.MaxInt64, math.MinInt64, int64(r.Uint64()), int64(r.IntN(1000))}[r.IntN(6)]
	case clmn.Float64:
		return []float64{0, -1.5, math.MaxFloat64, math.SmallestNonzeroFloat64, r.NormFloat64() * 1e6, float64(r.IntN(10))}[r.IntN(6)]
	}
	b := make([]byte, 0, 16)
	for range r.IntN(12) {
		b = append(b, []string{"a", "Z", "é", "日", " ", "\"", "0"}[r.IntN(7)]...)
	}
	return b
}
