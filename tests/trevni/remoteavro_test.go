package trevni_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/rangeserver"
	_ "github.com/trevni-go/trevni/remote/httpread"
)

// An Avro container file read over HTTP: opening it walks its block
// headers reading its first 4 MiB in windows (one request for many small
// blocks; the front door keeps those bytes for the reads of the records);
// past them, small blocks are read in windows growing from 64 KiB to
// 4 MiB (a few requests for thousands of blocks, their bytes fetched
// again by the reads of the records), and a large block takes one
// request (its sync marker and the next block's header together, no
// data). Four files: small blocks within 4 MiB, small blocks past it,
// 20,000 blocks of two records (12 MB), and 1.5 MiB blocks. The records
// are goavro's reading of the file, and the same file's read from disk.
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
		{1600, 50, 100, 8 + 8},   // 8.5 MB: 4.3 MB of small blocks past 4 MiB
		{20_000, 2, 300, 8 + 10}, // 12 MB: 7.8 MB of them, 12,700 blocks
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
		// The bytes past the first 4 MiB of small blocks are fetched
		// twice; a large block's once.
		twice := int64(0)
		if tc.per*tc.size < 1<<20 {
			twice = max(0, size-4<<20)
		}
		if sent > size+twice+size/20 {
			t.Errorf("%d blocks: %d bytes fetched to read a file of %d", tc.blocks, sent, size)
		}
		local := filepath.Join(t.TempDir(), "part.avro")
		if err := os.WriteFile(local, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		lds, err := trevni.Open(ctx, local, nil)
		if err != nil {
			t.Fatal(err)
		}
		var disk []any
		for rec, err := range lds.All(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			disk = append(disk, rec)
		}
		lds.Close()
		if !reflect.DeepEqual(got, disk) {
			t.Fatalf("%d blocks: the records read over HTTP differ from those read from disk", tc.blocks)
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
