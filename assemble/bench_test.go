package assemble

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrojson"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/shred"
)

// deepSchema nests records in arrays in maps in unions, five levels deep.
const deepSchema = `{"type":"record","name":"Deep","namespace":"bench","fields":[
	{"name":"id","type":"long"},
	{"name":"u","type":["null",{"type":"map","values":{"type":"array","items":{"type":"record","name":"L1","fields":[
		{"name":"a","type":"int"},
		{"name":"s","type":"string"},
		{"name":"kids","type":{"type":"array","items":{"type":"record","name":"L2","fields":[
			{"name":"x","type":"double"},
			{"name":"tag","type":["null","string",{"type":"record","name":"L3","fields":[
				{"name":"m","type":{"type":"map","values":"long"}},
				{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}}]}]}]}}}]}}}]},
	{"name":"tail","type":{"type":"array","items":"float"}}]}`

// benchData is a set of records as an Avro container file (codec null).
type benchData struct {
	name      string
	schema    string
	container []byte
	rows      int
	size      int64 // bytes of Avro binary
}

// benchSets returns the interop medium records and deterministic deep
// records of about the same size.
func benchSets(b testing.TB) []*benchData {
	medium, err := os.ReadFile(filepath.Join(interopDir, "medium", "input.avro"))
	if err != nil {
		b.Fatal(err)
	}
	r, err := ocf.NewReader(bytes.NewReader(medium))
	if err != nil {
		b.Fatal(err)
	}
	m := &benchData{name: "medium", schema: r.Schema(), container: medium}
	for {
		count, data, err := r.NextBlock()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		m.rows += int(count)
		m.size += int64(len(data))
	}

	d := &benchData{name: "deep", schema: deepSchema}
	s := schema.MustParse(deepSchema)
	codec, err := goavro.NewCodec(deepSchema)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := ocf.NewWriter(&buf, deepSchema, ocf.WriterOptions{SyncMarker: [16]byte{1}})
	if err != nil {
		b.Fatal(err)
	}
	g := avrorand.New(42, avrorand.Options{MaxLen: 4})
	var rec []byte
	for d.size < 2<<20 {
		if rec, err = codec.BinaryFromNative(rec[:0], g.Value(s)); err != nil {
			b.Fatal(err)
		}
		if err := w.Append(rec); err != nil {
			b.Fatal(err)
		}
		d.rows++
		d.size += int64(len(rec))
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	d.container = buf.Bytes()
	return []*benchData{m, d}
}

// trevni returns the records as a Trevni file of the codec.
func (d *benchData) trevni(b testing.TB, codec string) []byte {
	var out bytes.Buffer
	if _, err := shred.FromContainer(context.Background(), &out, bytes.NewReader(d.container), &shred.Options{WriterOptions: format.WriterOptions{Codec: codec}}); err != nil {
		b.Fatal(err)
	}
	return out.Bytes()
}

func (d *benchData) reader(b *testing.B, file []byte) *AvroReader {
	rd, err := format.NewReader(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		b.Fatal(err)
	}
	ar, err := NewAvroReader(rd, nil)
	if err != nil {
		b.Fatal(err)
	}
	return ar
}

// reportRows reports the rows read per second.
func reportRows(b *testing.B, rows int) {
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkToAvro converts a Trevni file to an Avro container file through
// the fast path (ToContainer: ReadBinary encodes from the columns) and the
// generic one (Read, then goavro's BinaryFromNative). The codec is both
// the Trevni file's and the container's.
func BenchmarkToAvro(b *testing.B) {
	for _, d := range benchSets(b) {
		for _, codec := range []string{"null", "deflate"} {
			file := d.trevni(b, codec)
			copts := &ContainerOptions{Codec: codec, SyncMarker: [16]byte{1}}
			b.Run(d.name+"/"+codec+"/fast", func(b *testing.B) {
				b.SetBytes(d.size)
				b.ReportAllocs()
				for b.Loop() {
					n, err := ToContainer(context.Background(), io.Discard, d.reader(b, file), copts)
					if err != nil || n != int64(d.rows) {
						b.Fatalf("%d rows: %v", n, err)
					}
				}
				reportRows(b, d.rows)
			})
			b.Run(d.name+"/"+codec+"/generic", func(b *testing.B) {
				b.SetBytes(d.size)
				b.ReportAllocs()
				codec, err := goavro.NewCodec(d.schema)
				if err != nil {
					b.Fatal(err)
				}
				var rec []byte
				for b.Loop() {
					ar := d.reader(b, file)
					w, err := ocf.NewWriter(io.Discard, ar.readText, ocf.WriterOptions{Codec: copts.Codec, SyncMarker: copts.SyncMarker})
					if err != nil {
						b.Fatal(err)
					}
					n := 0
					for {
						v, err := ar.Read()
						if err == io.EOF {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
						if rec, err = codec.BinaryFromNative(rec[:0], v); err != nil {
							b.Fatal(err)
						}
						if err := w.Append(rec); err != nil {
							b.Fatal(err)
						}
						n++
					}
					if err := w.Close(); err != nil || n != d.rows {
						b.Fatalf("%d rows: %v", n, err)
					}
				}
				reportRows(b, d.rows)
			})
		}
	}
}

// BenchmarkToJSON writes a Trevni file as Avro JSON lines through the fast
// path (ReadJSON, straight from the columns) and the value path (Read, then
// avrojson.Append), and as plain JSON lines (ReadPlainJSON). MB/s counts the Avro binary size of the records.
func BenchmarkToJSON(b *testing.B) {
	for _, d := range benchSets(b) {
		file := d.trevni(b, "null")
		s := schema.MustParse(d.schema)
		b.Run(d.name+"/fast", func(b *testing.B) {
			b.SetBytes(d.size)
			b.ReportAllocs()
			var line []byte
			for b.Loop() {
				ar := d.reader(b, file)
				for {
					var err error
					if line, err = ar.ReadJSON(line[:0]); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
			reportRows(b, d.rows)
		})
		b.Run(d.name+"/plain", func(b *testing.B) {
			b.SetBytes(d.size)
			b.ReportAllocs()
			var line []byte
			for b.Loop() {
				ar := d.reader(b, file)
				for {
					var err error
					if line, err = ar.ReadPlainJSON(line[:0]); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
			reportRows(b, d.rows)
		})
		b.Run(d.name+"/values", func(b *testing.B) {
			b.SetBytes(d.size)
			b.ReportAllocs()
			var line []byte
			for b.Loop() {
				ar := d.reader(b, file)
				for {
					v, err := ar.Read()
					if err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
					if line, err = avrojson.Append(line[:0], s, v); err != nil {
						b.Fatal(err)
					}
				}
			}
			reportRows(b, d.rows)
		})
	}
}
