package trevni

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/rangeserver"
	"github.com/trevni-go/trevni/shred"
)

// bigFileSchema has a nested column (the tags' items), which Validate
// checks a second time row by row, beside the records it reads a third.
const bigFileSchema = `{"type":"record","name":"B","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"},{"name":"tags","type":{"type":"array","items":"string"}}]}`

// bigFile returns a Trevni file of random, uncompressed, checksummed
// records larger
// than the remote reader's window budget (remote.DefaultBudget, 32 MiB),
// so that what a reader reads twice is not still held.
func bigFile(t *testing.T) []byte {
	t.Helper()
	var out bytes.Buffer
	aw, err := shred.NewAvroWriter(&out, bigFileSchema, &shred.Options{WriterOptions: format.WriterOptions{Codec: "null", Checksum: "crc32"}})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	word := func(b []byte) []byte {
		n := 4 + r.IntN(12)
		b = binary.AppendVarint(b, int64(n))
		for range n {
			b = append(b, byte('a'+r.IntN(26)))
		}
		return b
	}
	var rec []byte
	// About 27 bytes a record: 43 MB (the writer writes the file when
	// it is closed).
	for i := range 1600000 {
		rec = binary.AppendVarint(rec[:0], int64(i))
		rec = word(rec)
		if k := r.IntN(3); k > 0 {
			rec = binary.AppendVarint(rec, int64(k))
			for range k {
				rec = word(rec)
			}
		}
		rec = append(rec, 0)
		if err := aw.WriteBinary(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	if out.Len() < 33<<20 {
		t.Fatalf("the file is %d bytes, not more than the window budget", out.Len())
	}
	return out.Bytes()
}

// TestValidateFetchesTheFileOnce: Validate over HTTP, which reads every
// block more than once (the blocks, then the nested columns' rows, then
// every record), fetches each byte of the file once, in no more than
// twice the requests that reading every record (tojson) makes; its
// temporary copy goes with the data set. A damaged file read so is still
// reported, naming the URL.
func TestValidateFetchesTheFileOnce(t *testing.T) {
	b := bigFile(t)
	size := int64(len(b))
	ctx := context.Background()
	tmp := t.TempDir()
	srv := rangeserver.Bytes(t, b, nil)
	url := srv.URL + "/large.trv"
	opts := &OpenOptions{TempDir: tmp}

	ds, err := Open(ctx, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ds.WriteJSON(ctx, io.Discard, nil, nil); err != nil {
		t.Fatal(err)
	}
	ds.Close()
	quiet(&srv.Sent)
	jsonReqs, jsonSent := srv.Requests.Load(), srv.Sent.Load()

	srv.Reset()
	ds, err = Open(ctx, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Validate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ds.Close(); err != nil {
		t.Fatal(err)
	}
	quiet(&srv.Sent)
	reqs, sent := srv.Requests.Load(), srv.Sent.Load()
	t.Logf("a file of %d bytes: validate fetched %d bytes (%.3fx) in %d requests; tojson %d bytes in %d requests", size, sent, float64(sent)/float64(size), reqs, jsonSent, jsonReqs)
	if sent > size+size/20 {
		t.Errorf("validate fetched %d bytes of a file of %d: more than 1.05x", sent, size)
	}
	if reqs > 2*jsonReqs {
		t.Errorf("validate made %d requests, tojson %d: more than twice", reqs, jsonReqs)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in the temporary directory: %v", left)
	}

	// A block damaged in the middle of the file: reported, naming the URL.
	bad := append([]byte(nil), b...)
	bad[len(bad)/2] ^= 0x55
	srv2 := rangeserver.Bytes(t, bad, nil)
	ds, err = Open(ctx, srv2.URL+"/bad.trv", opts)
	if err != nil {
		t.Fatal(err)
	}
	err = ds.Validate(ctx)
	ds.Close()
	if err == nil || !strings.Contains(err.Error(), srv2.URL+"/bad.trv") || strings.Contains(err.Error(), filepath.Base(tmp)) {
		t.Fatalf("a damaged file: %v", err)
	}
}
