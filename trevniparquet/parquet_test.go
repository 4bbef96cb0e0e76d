package trevniparquet_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/testing/avrorand"

	"github.com/trevni-go/trevni/trevniparquet"
)

// Random schemas and values, Trevni to Parquet (row groups of a few rows,
// each codec) to Trevni: the same Avro schema, restored from the Parquet
// metadata, and every value equal.
func TestParquetRoundTripProperty(t *testing.T) {
	ctx := context.Background()
	codecs := []string{"snappy", "zstd", "gzip", "none"}
	for seed := range uint64(60) {
		name, text, want := writeRandom(t, seed, int(seed%9)+1)
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		n, err := trevniparquet.Write(ctx, &buf, ds, &trevniparquet.WriteOptions{Codec: codecs[seed%4], RowGroupRows: 2})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		if n != int64(len(want)) {
			t.Fatalf("seed %d: %d rows written, want %d", seed, n, len(want))
		}
		pf, err := trevniparquet.Open(bytes.NewReader(buf.Bytes()), nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if pf.AvroSchema() != frontdoor.Schema(ds).String() {
			t.Fatalf("seed %d: Avro schema\n%s\nback from Parquet as\n%s", seed, frontdoor.Schema(ds).String(), pf.AvroSchema())
		}
		if pf.NumRows() != n {
			t.Fatalf("seed %d: %d Parquet rows, want %d", seed, pf.NumRows(), n)
		}
		out := filepath.Join(t.TempDir(), "back.trv")
		w, err := trevni.Create(context.Background(), out, pf.AvroSchema(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pf.WriteTo(ctx, w); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		pf.Close()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got := readAll(t, out)
		if len(got) != len(want) {
			t.Fatalf("seed %d: %d records back, want %d", seed, len(got), len(want))
		}
		for i := range want {
			if !avrorand.EqualNative(got[i], want[i]) {
				t.Fatalf("seed %d: record %d\n got %v\nwant %v\n%s", seed, i, got[i], want[i], text)
			}
		}
	}
}
