package ocf

import (
	"bytes"
	"io"
	"testing"

	"github.com/trevni-go/trevni/internal/codec"
)

var benchCodecs = []string{codec.Null, codec.Deflate, codec.Snappy, codec.Zstandard}

// benchData returns the medium interop records.
func benchData(b *testing.B) (string, [][]byte, int64) {
	schema, recs := interopRecords(b, interopFiles(b)["medium"])
	var n int64
	for _, r := range recs {
		n += int64(len(r))
	}
	return schema, recs, n
}

func BenchmarkWriter(b *testing.B) {
	schema, recs, size := benchData(b)
	for _, codec := range benchCodecs {
		b.Run(codec, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			w, err := NewWriter(io.Discard, schema, WriterOptions{Codec: codec})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				for _, r := range recs {
					if err := w.Append(r); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Flush(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkReader(b *testing.B) {
	schema, recs, size := benchData(b)
	for _, codec := range benchCodecs {
		b.Run(codec, func(b *testing.B) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, schema, WriterOptions{Codec: codec})
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range recs {
				w.Append(r)
			}
			w.Close()
			file := buf.Bytes()
			b.ReportMetric(float64(len(file))/float64(size), "ratio")
			b.SetBytes(size)
			b.ReportAllocs()
			br := bytes.NewReader(file)
			// One Reader per file is the real use; measure its whole
			// cost, header and first-block warm-up included.
			for b.Loop() {
				br.Reset(file)
				r, err := NewReader(br)
				if err != nil {
					b.Fatal(err)
				}
				for {
					_, _, err := r.NextBlock()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
