package trevniparquet_test

import (
	"context"
	"io"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/trevniparquet"
)

// Trevni to Parquet, straight from the columns and through Arrow batches, on Java's medium
// vector (vec.Large, snappy). MB/s is of the file's stored bytes.

const benchFile = "../testdata/interop/medium/medium.snappy.crc32.trv"

func openBench(b *testing.B) *trevni.Dataset {
	b.Helper()
	ds, err := trevni.Open(context.Background(), benchFile, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(ds.Size())
	b.ReportAllocs()
	return ds
}

func BenchmarkToParquet(b *testing.B) {
	ds := openBench(b)
	for b.Loop() {
		if _, err := trevniparquet.Write(context.Background(), io.Discard, ds, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToParquetArrow is BenchmarkToParquet through Arrow batches, the
// path of data sets the direct path does not cover.
func BenchmarkToParquetArrow(b *testing.B) {
	ds := openBench(b)
	for b.Loop() {
		if _, err := trevniparquet.WriteArrow(context.Background(), io.Discard, ds, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFromParquet is Parquet to Trevni (the Trevni file discarded) of
// the Parquet file toparquet writes of the same vector: its pages' levels
// and dictionary indices checked, then decoded by arrow-go.
func BenchmarkFromParquet(b *testing.B) {
	data := parquetOf(b, benchFile, 0)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fromParquet(data); err != nil {
			b.Fatal(err)
		}
	}
}
