package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/stores/objstore"
	"github.com/trevni-go/trevni/stores/storetest/s3server"
)

// From an S3-protocol server a read fetches what it needs, as over HTTP,
// and the report's figures are what the server sent.
func TestObjectStoreFetchOnlyWhatIsRead(t *testing.T) {
	name, b := fetchFile(t)
	s := s3server.Start(t, "bkt")
	s.Put(t, "bkt", "data/large.trv", b)
	size := int64(len(b))
	ctx := context.Background()
	local, err := trevni.Open(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Reset()
	remote, err := trevni.Open(ctx, "s3://bkt/data/large.trv", fastRetries)
	if err != nil {
		t.Fatal(err)
	}
	if sent := s.Sent.Load(); sent > size/20 {
		t.Errorf("Open fetched %d of %d bytes: more than the header", sent, size)
	}
	for _, c := range []struct {
		name string
		opts trevni.ReadOptions
		most int64 // the most bytes it may fetch
	}{
		{"first rows of one field", trevni.ReadOptions{Fields: []string{"name"}, Limit: 3}, size / 20},
		{"one column whole", trevni.ReadOptions{Fields: []string{"id"}}, size / 4},
		{"a filter: its column and the fields' only", trevni.ReadOptions{Fields: []string{"small"}, Where: "id < -9200000000000000000"}, size / 3},
		{"a row range", trevni.ReadOptions{Fields: []string{"score"}, Offset: 100, Rows: 200}, size / 20},
		{"everything: each byte once at most", trevni.ReadOptions{}, size},
	} {
		if c.name != "first rows of one field" {
			// The first read reports the data set's open too.
			s.Reset()
		}
		got, fetched := readAllFetched(t, remote, &c.opts)
		sent, reqs := s.Sent.Load(), s.Requests.Load()
		if want := readAll(t, local, &c.opts); !sameRecords(got, want) {
			t.Errorf("%s: %d records from S3, %d from the file", c.name, len(got), len(want))
		}
		if fetched.Bytes > c.most || sent > c.most {
			t.Errorf("%s: fetched %d bytes by the report, %d by the server, of %d (at most %d)", c.name, fetched.Bytes, sent, size, c.most)
		}
		// Both sides count the same requests (a HEAD and GETs) and the
		// same bytes, but for a read ahead still in flight when the
		// report was taken (the server counts a body as it sends it).
		if fetched.Bytes > sent || sent > fetched.Bytes+1<<20 || fetched.Requests > reqs || reqs > fetched.Requests+2 {
			t.Errorf("%s: the report says %+v, the server sent %d bytes in %d requests", c.name, fetched, sent, reqs)
		}
		t.Logf("%s: %d records, %d bytes in %d requests (file %d)", c.name, len(got), sent, reqs, size)
	}
}

// Faults of the server (a connection dropped mid-body, a 500, a short
// body) are retried: the records are right. An object replaced while it
// is read fails the read with objstore.ErrChanged, never mixing versions.
func TestObjectStoreFaults(t *testing.T) {
	name, b := fetchFile(t)
	s := s3server.Start(t, "bkt")
	s.Put(t, "bkt", "large.trv", b)
	ctx := context.Background()
	local, err := trevni.Open(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := readAll(t, local, nil)
	remote, err := trevni.Open(ctx, "s3://bkt/large.trv", fastRetries)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []s3server.Fault{s3server.Drop, s3server.Error500, s3server.Short} {
		s.Inject(f, f)
		if got := readAll(t, remote, nil); !sameRecords(got, want) {
			t.Errorf("fault %d: %d records, want %d", f, len(got), len(want))
		}
		if s.Pending() != 0 {
			t.Errorf("fault %d: not injected", f)
		}
	}

	// Replaced between the opening of the data set and a read.
	s.Put(t, "bkt", "large.trv", slices.Concat(b[:len(b)-1], []byte{b[len(b)-1] ^ 1}))
	if _, err := remote.NewReader(ctx, nil); !errors.Is(err, objstore.ErrChanged) {
		t.Fatalf("reading an object replaced since the data set was opened: %v", err)
	}
	s.Put(t, "bkt", "large.trv", b)
	if remote, err = trevni.Open(ctx, "s3://bkt/large.trv", fastRetries); err != nil {
		t.Fatal(err)
	}

	// Replaced between the header and the blocks.
	r, err := remote.NewReader(ctx, &trevni.ReadOptions{Fields: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	other := slices.Clone(b)
	other[len(other)/2] ^= 1 // same size, other bytes: another ETag
	s.Put(t, "bkt", "large.trv", other)
	for err == nil {
		_, err = r.Read()
	}
	if !errors.Is(err, objstore.ErrChanged) {
		t.Fatalf("reading an object replaced meanwhile: %v", err)
	}
}

// Create, CreateStructs and ConvertAvro write objects that appear only when
// complete, refuse to replace one unless told, and leave none when
// aborted; globs and prefixes over the keys open them as one data set.
func TestObjectStoreWrite(t *testing.T) {
	s := s3server.Start(t, "bkt")
	ctx := context.Background()
	opts := &trevni.WriteOptions{Codec: trevni.Snappy}
	src := "../../testdata/interop/medium/input.avro"
	n1, err := trevni.ConvertAvro(ctx, "s3://bkt/parts/a.trv", src, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The source from the store as well.
	avro, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	s.Put(t, "bkt", "in/input.avro", avro)
	n2, err := trevni.ConvertAvro(ctx, "s3://bkt/parts/b.trv", "s3://bkt/in/input.avro", opts)
	if err != nil || n2 != n1 {
		t.Fatalf("ConvertAvro from the store: %d records, %v (want %d)", n2, err, n1)
	}
	if _, err := trevni.ConvertAvro(ctx, "s3://bkt/parts/a.trv", src, opts); !errors.Is(err, trevni.ErrExists) {
		t.Fatalf("ConvertAvro over an existing object: %v", err)
	}
	a1, _ := s.Get(t, "bkt", "parts/a.trv")
	if _, err := trevni.ConvertAvro(ctx, "s3://bkt/parts/a.trv", src, &trevni.WriteOptions{Replace: true}); err != nil {
		t.Fatal(err)
	}
	if a2, _ := s.Get(t, "bkt", "parts/a.trv"); bytes.Equal(a1, a2) {
		t.Error("Replace wrote the same bytes with another codec")
	}
	s.Put(t, "bkt", "parts/notes.txt", []byte("not a part"))

	local, err := trevni.Open(ctx, src[:len(src)-len("input.avro")]+"medium.snappy.crc32.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := readAll(t, local, nil)
	for _, name := range []string{"s3://bkt/parts/*.trv", "s3://bkt/parts/"} {
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var names []string
		for _, p := range ds.Parts() {
			names = append(names, p.Name())
		}
		if !slices.Equal(names, []string{"s3://bkt/parts/a.trv", "s3://bkt/parts/b.trv"}) {
			t.Errorf("%s: parts %q", name, names)
		}
		got := readAll(t, ds, nil)
		if !sameRecords(got, append(slices.Clone(want), want...)) {
			t.Errorf("%s: %d records, want %d", name, len(got), 2*len(want))
		}
		ds.Close()
	}
	if _, err := trevni.Open(ctx, "s3://bkt/none/*.trv", nil); err == nil {
		t.Error("a glob that matches nothing opened")
	}

	// Abort leaves no object.
	w, err := trevni.Create(context.Background(), "s3://bkt/aborted.trv", `{"type":"record","name":"R","fields":[{"name":"x","type":"long"}]}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		if err := w.Write(map[string]any{"x": int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	w.Abort()
	if _, ok := s.Get(t, "bkt", "aborted.trv"); ok {
		t.Error("an aborted Create left an object")
	}
}
