package format

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

const benchRows = 200_000

var benchTypes = []ValueType{Boolean, Int, Long, Fixed64, Double, String, Bytes}

var benchCodecs = []string{CodecNull, CodecDeflate, CodecSnappy, CodecZstd, CodecBzip2}

// benchValues returns deterministic values of type t, shaped like real data:
// small integers, short strings.
func benchValues(t ValueType) []any {
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]any, benchRows)
	for i := range vals {
		switch t {
		case Boolean:
			vals[i] = r.IntN(3) == 0
		case Int:
			vals[i] = int32(r.IntN(100000))
		case Long, Fixed64:
			vals[i] = int64(r.IntN(1 << 40))
		case Double:
			vals[i] = r.Float64() * 1000
		case String:
			vals[i] = fmt.Sprintf("user-%d@example.org", r.IntN(50000))
		case Bytes:
			vals[i] = []byte(fmt.Sprintf("payload-%08x", r.Uint32()))
		}
	}
	return vals
}

// writeBench writes one column of vals with the typed methods.
func writeBench(b *testing.B, out io.Writer, t ValueType, codec string, vals []any) int64 {
	w, err := NewWriter(out, []ColumnMeta{{Name: "c", Type: t}}, &WriterOptions{Codec: codec, Checksum: ChecksumCRC32})
	if err != nil {
		b.Fatal(err)
	}
	var raw int64
	for _, v := range vals {
		w.StartRow()
		switch t {
		case Boolean:
			w.WriteBool(0, v.(bool))
		case Int:
			w.WriteInt(0, v.(int32))
			raw += 4
		case Long:
			w.WriteLong(0, v.(int64))
			raw += 8
		case Fixed64:
			w.WriteFixed64(0, v.(int64))
			raw += 8
		case Double:
			w.WriteDouble(0, v.(float64))
			raw += 8
		case String:
			w.WriteString(0, v.(string))
			raw += int64(len(v.(string)))
		case Bytes:
			w.WriteBytes(0, v.([]byte))
			raw += int64(len(v.([]byte)))
		}
		w.EndRow()
	}
	if t == Boolean {
		raw = int64(len(vals))
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return raw
}

// BenchmarkWrite writes a column of each type with each codec. MB/s counts
// the values' in-memory size (one byte per boolean).
func BenchmarkWrite(b *testing.B) {
	for _, t := range benchTypes {
		vals := benchValues(t)
		for _, codec := range benchCodecs {
			b.Run(t.String()+"/"+codec, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					raw := writeBench(b, io.Discard, t, codec, vals)
					b.SetBytes(raw)
				}
				b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "values/s")
			})
		}
	}
}

// BenchmarkRead reads a column of each type with each codec with the typed
// methods.
func BenchmarkRead(b *testing.B) {
	for _, t := range benchTypes {
		vals := benchValues(t)
		for _, codec := range benchCodecs {
			b.Run(t.String()+"/"+codec, func(b *testing.B) {
				var buf bytes.Buffer
				raw := writeBench(b, &buf, t, codec, vals)
				data := buf.Bytes()
				b.SetBytes(raw)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
					if err != nil {
						b.Fatal(err)
					}
					c, err := rd.Values(0)
					if err != nil {
						b.Fatal(err)
					}
					for c.StartRow() == nil {
						switch t {
						case Boolean:
							_, err = c.ReadBool()
						case Int:
							_, err = c.ReadInt()
						case Long:
							_, err = c.ReadLong()
						case Fixed64:
							_, err = c.ReadFixed64()
						case Double:
							_, err = c.ReadDouble()
						default:
							_, err = c.ReadBytes()
						}
						if err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "values/s")
			})
		}
	}
}

// BenchmarkRowsOf reads the rows of Java's medium data set (30,000 rows,
// snappy) schema-less and writes them as JSON as dump does (ReadJSON), of
// every column and of a selection (one top-level column; one child column,
// which brings its parent); all-Read builds every row (Read, then
// Row.AppendJSON) instead. MB/s counts the stored bytes of the columns
// read.
func BenchmarkRowsOf(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(interopDir, "medium", "medium.snappy.crc32.trv"))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		cols  []int
		build bool
	}{{"all", nil, false}, {"score", []int{2}, false}, {"pts.x", []int{8}, false}, {"all-Read", nil, true}} {
		b.Run(c.name, func(b *testing.B) {
			rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				b.Fatal(err)
			}
			rr, err := rd.RowsOf(&RowsOptions{Columns: c.cols})
			if err != nil {
				b.Fatal(err)
			}
			var size int64
			for _, i := range rr.Columns() {
				_, n := rd.ColumnRange(i)
				size += n
			}
			rr.Close()
			b.SetBytes(size)
			b.ReportAllocs()
			var buf []byte
			for i := 0; i < b.N; i++ {
				rr, err := rd.RowsOf(&RowsOptions{Columns: c.cols})
				if err != nil {
					b.Fatal(err)
				}
				for {
					if c.build {
						var row Row
						if row, err = rr.Read(); err == nil {
							buf = row.AppendJSON(buf[:0])
						}
					} else {
						buf, err = rr.ReadJSON(buf[:0])
					}
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				rr.Close()
			}
		})
	}
}

// BenchmarkReadBatch reads a column of each type by the batch reads
// (ReadBools, ReadInts, ReadLongs, ReadDoubles, ReadBytesTo), 4096 rows a
// call, null codec (the decoding alone; compare BenchmarkRead/TYPE/null).
// Each pass seeks back to row 0 of one reader. MB/s counts the values'
// in-memory size, as BenchmarkRead does.
func BenchmarkReadBatch(b *testing.B) {
	for _, t := range []ValueType{Boolean, Int, Long, Double, String, Bytes} {
		b.Run(t.String(), func(b *testing.B) {
			var buf bytes.Buffer
			raw := writeBench(b, &buf, t, CodecNull, benchValues(t))
			data := buf.Bytes()
			rd, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				b.Fatal(err)
			}
			c, err := rd.Values(0)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			bools, ints, longs, doubles := make([]bool, 4096), make([]int32, 4096), make([]int64, 4096), make([]float64, 4096)
			var sum int
			fn := func(_ int, v []byte) { sum += len(v) }
			b.SetBytes(raw)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := c.SeekRow(0); err != nil {
					b.Fatal(err)
				}
				rows := 0
				for {
					var n int
					switch t {
					case Boolean:
						n, err = c.ReadBools(bools)
					case Int:
						n, err = c.ReadInts(ints)
					case Long:
						n, err = c.ReadLongs(longs)
					case Double:
						n, err = c.ReadDoubles(doubles)
					default:
						n, err = c.ReadBytesTo(4096, fn)
					}
					rows += n
					if err != nil {
						break
					}
				}
				if err != io.EOF || rows != benchRows {
					b.Fatalf("read %d rows, then %v", rows, err)
				}
			}
			b.ReportMetric(float64(benchRows*b.N)/b.Elapsed().Seconds(), "values/s")
		})
	}
}
