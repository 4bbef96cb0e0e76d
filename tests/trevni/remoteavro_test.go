package trevni_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/rangeserver"
	_ "github.com/trevni-go/trevni/remote/httpread"
)

// An Avro container file read over HTTP: opening it walks its block
// headers reading its first 4 MiB in windows (one request for many small
// blocks; the front door keeps those bytes for the reads of the records)
// and, past them or past a large block, one request a block (its sync
// marker and the next block's header together, no data); reading every
// record then fetches the rest once. Three files: small blocks within
// 4 MiB, small blocks past it, and 1.5 MiB blocks. The records are
// goavro's reading of the file.
func TestRemoteAvroWalk(t *testing.T) {
	const text = `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"s","type":"string"}]}`
	codec, err := goavro.NewCodec(text)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		blocks, per, size int
		maxOpen           int64 // requests to open
	}{
		{600, 50, 100, 8},        // 3.2 MB
		{1600, 50, 100, 8 + 900}, // 8.5 MB: the blocks past 4 MiB, one request each
		{8, 100, 15_000, 8 + 8},  // 12 MB of 1.5 MB blocks
	} {
		var buf bytes.Buffer
		w, err := goavro.NewOCFWriter(goavro.OCFConfig{W: &buf, Codec: codec})
		if err != nil {
			t.Fatal(err)
		}
		for b := range tc.blocks {
			recs := make([]any, tc.per)
			for i := range recs {
				recs[i] = map[string]any{"id": int64(b*tc.per + i), "s": fmt.Sprintf("%0*d", tc.size, b*i*7919)}
			}
			if err := w.Append(recs); err != nil {
				t.Fatal(err)
			}
		}
		size := int64(buf.Len())
		want, err := goavroAll(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		srv := rangeserver.Bytes(t, buf.Bytes(), nil)
		ctx := context.Background()
		ds, err := trevni.Open(ctx, srv.URL+"/part.avro", nil)
		if err != nil {
			t.Fatal(err)
		}
		openReqs, openBytes := srv.Requests.Load(), srv.Sent.Load()
		var got []any
		for rec, err := range ds.All(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, rec)
		}
		ds.Close()
		reqs, sent := srv.Requests.Load(), srv.Sent.Load()
		t.Logf("%d blocks, %d bytes: open %d requests, %d bytes; with every record read %d requests, %d bytes (%.3f of the file)", tc.blocks, size, openReqs, openBytes, reqs, sent, float64(sent)/float64(size))
		if len(got) != len(want) || !avrorand.EqualNative(got, want) {
			t.Fatalf("%d blocks: %d records read over HTTP differ from goavro's %d", tc.blocks, len(got), len(want))
		}
		if openReqs > tc.maxOpen {
			t.Errorf("%d blocks: %d requests to open, want at most %d", tc.blocks, openReqs, tc.maxOpen)
		}
		if sent > size+size/20 {
			t.Errorf("%d blocks: %d bytes fetched to read a file of %d", tc.blocks, sent, size)
		}
	}
}

// goavroAll reads every record of an Avro container file with goavro.
func goavroAll(data []byte) ([]any, error) {
	r, err := goavro.NewOCFReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var out []any
	for r.Scan() {
		v, err := r.Read()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, r.Err()
}
