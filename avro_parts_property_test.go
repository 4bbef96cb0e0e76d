package trevni

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/linkedin/goavro/v2"
)

// Random schemas and records, written as Trevni 2 parts by our writer and
// as Avro container files by goavro's (codecs null, deflate and snappy,
// blocks of 1 to 40 records, 1 to 3 files), read through the front door
// with random filters, offsets, row ranges and limits, on one worker and
// on three: the Avro parts, shredded block by block in memory, write byte
// for byte what the Trevni 2 parts write, and match as many records.
func TestAvroPartsProperty(t *testing.T) {
	ctx := context.Background()
	var compared, clean, refused int
	for seed := range uint64(30) {
		ds, s, recs := randomDataset(t, seed, 120)
		r := rand.New(rand.NewPCG(seed, 71))
		codec, err := goavro.NewCodec(ds.SchemaText())
		if err != nil {
			refused++ // a schema goavro refuses (its checks of defaults, say)
			continue
		}
		dir := t.TempDir()
		files := 1 + r.IntN(3)
		ok := true
		for f := range files {
			lo, hi := f*len(recs)/files, (f+1)*len(recs)/files
			out, err := os.Create(filepath.Join(dir, fmt.Sprintf("p%d.avro", f)))
			if err != nil {
				t.Fatal(err)
			}
			w, err := goavro.NewOCFWriter(goavro.OCFConfig{W: out, Codec: codec, CompressionName: []string{goavro.CompressionNullLabel, goavro.CompressionDeflateLabel, goavro.CompressionSnappyLabel}[r.IntN(3)]})
			if err != nil {
				t.Fatal(err)
			}
			for i := lo; i < hi; {
				n := min(hi-i, 1+r.IntN(40))
				if err := w.Append(recs[i : i+n]); err != nil {
					ok = false // a value goavro does not encode
					break
				}
				i += n
			}
			if err := out.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if !ok {
			refused++
			continue
		}
		dsa, err := Open(ctx, dir, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if dsa.RowCount() != int64(len(recs)) || dsa.Format() != Avro || dsa.SchemaText() != ds.SchemaText() {
			t.Fatalf("seed %d: %d rows of format %s, want %d of avro; schema %s", seed, dsa.RowCount(), dsa.Format(), len(recs), dsa.SchemaText())
		}
		exprs := compiledExprs(t, r, s, recs)
		for k := range 4 {
			o := drawReadOptions(t, r, exprs, k, ds.RowCount())
			out := outputs[(k+int(seed))%len(outputs)]
			want := writeWith(t, ctx, ds, o, 1, 0, out.write)
			for _, w := range []int{1, 3} {
				got := writeWith(t, ctx, dsa, o, w, 1+r.Int64N(9), out.write)
				if d := sameAcrossFormats(want, got); d != "" {
					t.Fatalf("seed %d, %s, %+v, %d workers: %s", seed, out.name, o, w, d)
				}
				compared++
				if got.err == nil && len(got.out) > 0 {
					clean++
				}
			}
		}
		dsa.Close()
	}
	t.Logf("%d comparisons (%d read without an error), %d schemas or values goavro refused", compared, clean, refused)
	if compared < 60 || clean < compared/2 {
		t.Fatalf("only %d comparisons (%d refused)", compared, refused)
	}
}
