package trevni_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/trevni-go/trevni"
)

// The front door's hot paths, on Java's medium vector (vec.Large, snappy):
// records to an Avro container, and two fields into structs. MB/s is of the
// file's stored bytes.

const benchFile = "testdata/interop/medium/medium.snappy.crc32.trv"

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

func BenchmarkWriteAvro(b *testing.B) {
	ds := openBench(b)
	for b.Loop() {
		if _, err := ds.WriteAvro(context.Background(), io.Discard, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadStructs(b *testing.B) {
	type twoFields struct {
		ID    int64   `avro:"id"`
		Score float64 `avro:"score"`
	}
	ds := openBench(b)
	for b.Loop() {
		for _, err := range trevni.ReadStructs[twoFields](context.Background(), ds, nil) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkConvertAvro(b *testing.B) {
	fi, err := os.Stat("testdata/interop/medium/input.avro")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	out := b.TempDir() + "/out.trv"
	for b.Loop() {
		if _, err := trevni.ConvertAvro(context.Background(), out, "testdata/interop/medium/input.avro", &trevni.WriteOptions{Replace: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// The writing methods on 1, 2 and 4 workers (ReadOptions.Workers): Avro
// container (snappy) and Avro JSON lines.
func BenchmarkWriteWorkers(b *testing.B) {
	for _, out := range []string{"avro", "json"} {
		for _, w := range []int{1, 2, 4} {
			b.Run(fmt.Sprintf("%s/workers=%d", out, w), func(b *testing.B) {
				ds := openBench(b)
				o := &trevni.ReadOptions{Workers: w}
				for b.Loop() {
					var err error
					if out == "avro" {
						_, err = ds.WriteAvro(context.Background(), io.Discard, o, &trevni.AvroOptions{Codec: "snappy"})
					} else {
						_, err = ds.WriteJSON(context.Background(), io.Discard, o, nil)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
