package trevni1_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/veclarge"
	"github.com/trevni-go/trevni/shred"
	"github.com/trevni-go/trevni/trevni1"
	"github.com/trevni-go/trevni/trevni1/convert"
)

// BenchmarkSourceRecords reads 20,000 vec.Large records (deflate) as Avro
// binary through a version-1 file's Source (trv1) and from the version-2
// file of the same records (trv): the cost of reading Trevni 1 in place,
// which should stay near that of Trevni 2.
func BenchmarkSourceRecords(b *testing.B) {
	v1 := vecLargeV1(b, 20000)
	open1 := func() *trevni1.Reader {
		rd, err := trevni1.NewReader(bytes.NewReader(v1.Bytes()), int64(v1.Len()), nil)
		if err != nil {
			b.Fatal(err)
		}
		return rd
	}
	var v2 bytes.Buffer
	if _, err := convert.ToV2(context.Background(), &v2, open1(), &shred.Options{WriterOptions: format.WriterOptions{Codec: "deflate"}}); err != nil {
		b.Fatal(err)
	}
	read := func(b *testing.B, rd *format.Reader) {
		ar, err := assemble.NewAvroReader(rd, nil)
		if err != nil {
			b.Fatal(err)
		}
		var out []byte
		for {
			if out, err = ar.ReadBinary(out[:0]); err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				return
			}
		}
	}
	b.Run("trv", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rd, err := format.NewReader(bytes.NewReader(v2.Bytes()), int64(v2.Len()), nil)
			if err != nil {
				b.Fatal(err)
			}
			read(b, rd)
		}
	})
	b.Run("trv1", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			src, err := trevni1.NewSource(open1())
			if err != nil {
				b.Fatal(err)
			}
			rd, err := format.NewSourceReader(src, nil)
			if err != nil {
				b.Fatal(err)
			}
			read(b, rd)
		}
	})
}

// BenchmarkSourceArrayLeaves reads the two leaves of vec.Large's pts (an
// array of records {x, y}) of 20,000 records (deflate) through a
// version-1 file's Source one after the other, as toparquet writes a row
// group's column chunks: the second leaf's lengths and sibling check read
// the first leaf's column, whose levels the Source's cache keeps (see
// TestSourceSharedColumnInflatedOnce).
func BenchmarkSourceArrayLeaves(b *testing.B) {
	const rows = 20000
	v1 := vecLargeV1(b, rows)
	b.ReportAllocs()
	for b.Loop() {
		rd := openSource(b, bytes.NewReader(v1.Bytes()), int64(v1.Len()), nil)
		var open []*format.ColumnReader
		col := func(name string) *format.ColumnReader {
			i, ok := rd.ColumnIndex(name)
			if !ok {
				b.Fatalf("no column %s", name)
			}
			c, err := rd.Values(i)
			if err != nil {
				b.Fatal(err)
			}
			open = append(open, c)
			return c
		}
		for _, leaf := range []string{"pts[]#x", "pts[]#y"} {
			if items := readArrayLeaf(b, col("pts[]"), col(leaf), rows); len(items) == 0 {
				b.Fatalf("%s: no items", leaf)
			}
		}
		for _, c := range open {
			c.Close()
		}
	}
}

// vecLargeV1 writes n vec.Large records as a version-1 file (deflate).
func vecLargeV1(b testing.TB, n int) *bytes.Buffer {
	var v1 bytes.Buffer
	rw, err := trevni1.NewRecordWriter(&v1, veclarge.Schema, &trevni1.WriterOptions{Codec: trevni1.CodecDeflate})
	if err != nil {
		b.Fatal(err)
	}
	g := veclarge.New()
	var rec []byte
	for i := range n {
		rec = g.Append(rec[:0], i)
		if _, err := rw.WriteBinary(rec); err != nil {
			b.Fatal(err)
		}
	}
	if err := rw.Close(); err != nil {
		b.Fatal(err)
	}
	return &v1
}
