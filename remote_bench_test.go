package trevni_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrobin"
	"github.com/trevni-go/trevni/internal/s3server"
	"github.com/trevni-go/trevni/internal/testing/rangeserver"
	"github.com/trevni-go/trevni/shred"
)

// wideSchema is the schema of the remote benchmark's file: eight columns.
const wideSchema = `{"type":"record","name":"R","fields":[
 {"name":"id","type":"long"},{"name":"name","type":"string"},
 {"name":"a","type":"int"},{"name":"b","type":"double"},
 {"name":"c","type":"boolean"},{"name":"d","type":"string"},
 {"name":"e","type":"long"},{"name":"f","type":"float"}]}`

// wideRows makes a file of about 100 MB (no codec).
const wideRows = 2_150_000

// writeWide writes the benchmark's file: ids ascending (a filter on them
// skips blocks by their statistics), the other columns pseudo-random.
func writeWide(b *testing.B, name string) {
	b.Helper()
	w, err := trevni.Create(name, wideSchema, &trevni.WriteOptions{Options: shred.Options{WriterOptions: format.WriterOptions{Codec: "null"}}})
	if err != nil {
		b.Fatal(err)
	}
	x := uint64(88172645463325252)
	var rec []byte
	for i := range int64(wideRows) {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		rec = avrobin.AppendLong(rec[:0], i)
		rec = avrobin.AppendString(rec, fmt.Sprintf("name-%d", x%50000))
		rec = avrobin.AppendLong(rec, int64(int32(x)))
		rec = avrobin.AppendDouble(rec, float64(x%1000000)/7)
		rec = append(rec, byte(x&1))
		rec = avrobin.AppendString(rec, fmt.Sprintf("%x", x%(1<<20)))
		rec = avrobin.AppendLong(rec, int64(x>>2))
		rec = avrobin.AppendFloat(rec, float32(math.Float64frombits(x>>12|0x3ff0000000000000)))
		if err := w.WriteBinary(rec); err != nil {
			w.Abort()
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRemoteFilteredRead reads two of the eight columns of a 100 MB
// file where a filter on one of them leaves 1% of the rows, from a range
// server and from an S3 server on the loopback address, against reading
// the whole file; it reports the bytes and requests fetched (by the
// reader's report) and the bytes the server sent. It writes the file
// first (tens of seconds), so it runs only with TREVNI_LONG_TESTS=1.
func BenchmarkRemoteFilteredRead(b *testing.B) {
	if os.Getenv("TREVNI_LONG_TESTS") != "1" {
		b.Skip("writes a 100 MB file: set TREVNI_LONG_TESTS=1")
	}
	dir := b.TempDir()
	name := filepath.Join(dir, "wide.trv")
	writeWide(b, name)
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	rs := rangeserver.Dir(b, dir, nil)
	s3 := s3server.Start(b, "bkt")
	s3.Put(b, "bkt", "wide.trv", data)
	filtered := &trevni.ReadOptions{Fields: []string{"id", "name"}, Where: fmt.Sprintf("id < %d", wideRows/100)}
	for _, place := range []struct {
		name, url string
		sent      func() int64
		reset     func()
	}{
		{"http", rs.URL + "/wide.trv", rs.Sent.Load, rs.Reset},
		{"s3", "s3://bkt/wide.trv", s3.Sent.Load, s3.Reset},
	} {
		for _, read := range []struct {
			name string
			opts *trevni.ReadOptions
		}{
			{"2of8-filtered", filtered},
			{"whole", nil},
		} {
			b.Run(place.name+"/"+read.name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				var fetched trevni.Fetched
				var records, sent int64
				for b.Loop() {
					place.reset()
					ctx := context.Background()
					ds, err := trevni.Open(ctx, place.url, nil)
					if err != nil {
						b.Fatal(err)
					}
					r, err := ds.NewReader(ctx, read.opts)
					if err != nil {
						b.Fatal(err)
					}
					records = 0
					for _, err := range r.All() {
						if err != nil {
							b.Fatal(err)
						}
						records++
					}
					fetched = trevni.Fetched{}
					for _, p := range r.Report() {
						fetched.Requests += p.Fetched.Requests
						fetched.Bytes += p.Fetched.Bytes
					}
					r.Close()
					ds.Close()
					sent = place.sent()
				}
				b.ReportMetric(float64(fetched.Bytes), "fetched-B/op")
				b.ReportMetric(float64(fetched.Requests), "requests/op")
				b.ReportMetric(float64(sent), "sent-B/op")
				b.Logf("%s %s: %d records; file %d bytes; the reader fetched %d bytes in %d requests; the server sent %d bytes (opening included)",
					place.name, read.name, records, len(data), fetched.Bytes, fetched.Requests, sent)
			})
		}
	}
}
