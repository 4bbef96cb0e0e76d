package objstore_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/stores/objstore"
	"github.com/trevni-go/trevni/stores/storetest/gcsserver"
)

// The front door over gs:// URLs, against a GCS server in process
// (fake-gcs-server behind STORAGE_EMULATOR_HOST): writes appear when
// complete and are refused over an object unless told; a read fetches
// what it needs, and the report's figures are what the server sent;
// faults are retried; a replaced object fails the read with ErrChanged;
// globs and prefixes list the bucket's keys.
func TestObjectStoreGCS(t *testing.T) {
	s := gcsserver.Start(t, "bkt")
	ctx := context.Background()
	opts := &trevni.WriteOptions{Codec: trevni.Snappy}
	src := "../../testdata/interop/medium/input.avro"
	n1, err := trevni.ConvertAvro(ctx, "gs://bkt/parts/a.trv", src, opts)
	if err != nil {
		t.Fatal(err)
	}
	avro, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	s.Put(t, "bkt", "in/input.avro", avro)
	if n2, err := trevni.ConvertAvro(ctx, "gs://bkt/parts/b.trv", "gs://bkt/in/input.avro", opts); err != nil || n2 != n1 {
		t.Fatalf("ConvertAvro from the store: %d records, %v (want %d)", n2, err, n1)
	}
	if _, err := trevni.ConvertAvro(ctx, "gs://bkt/parts/a.trv", src, opts); !errors.Is(err, trevni.ErrExists) {
		t.Fatalf("ConvertAvro over an existing object: %v", err)
	}
	s.Put(t, "bkt", "parts/notes.txt", []byte("not a part"))
	local, err := trevni.Open(ctx, "../../testdata/interop/medium/medium.snappy.crc32.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := readAll(t, local, nil)
	for _, name := range []string{"gs://bkt/parts/*.trv", "gs://bkt/parts/"} {
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var names []string
		for _, p := range ds.Parts() {
			names = append(names, p.Name())
		}
		if !slices.Equal(names, []string{"gs://bkt/parts/a.trv", "gs://bkt/parts/b.trv"}) {
			t.Errorf("%s: parts %q", name, names)
		}
		if got := readAll(t, ds, nil); !reflect.DeepEqual(got, append(slices.Clone(want), want...)) {
			t.Errorf("%s: %d records, want %d", name, len(got), 2*len(want))
		}
		ds.Close()
	}

	// Aborted: no object.
	w, err := trevni.Create(context.Background(), "gs://bkt/aborted.trv", `{"type":"record","name":"R","fields":[{"name":"x","type":"long"}]}`, nil)
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

	// Reads fetch what they need.
	name, b := fetchFile(t)
	s.Put(t, "bkt", "large.trv", b)
	size := int64(len(b))
	if local, err = trevni.Open(ctx, name, nil); err != nil {
		t.Fatal(err)
	}
	s.Reset()
	remote, err := trevni.Open(ctx, "gs://bkt/large.trv", fastRetries)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opts trevni.ReadOptions
		most int64
	}{
		{"first rows of one field", trevni.ReadOptions{Fields: []string{"name"}, Limit: 3}, size / 20},
		{"a filter: its column and the fields' only", trevni.ReadOptions{Fields: []string{"small"}, Where: "id < -9200000000000000000"}, size / 3},
		{"everything: each byte once at most", trevni.ReadOptions{}, size},
	} {
		if c.name != "first rows of one field" {
			s.Reset()
		}
		got, fetched := readAllFetched(t, remote, &c.opts)
		sent, reqs := s.Sent.Load(), s.Requests.Load()
		if want := readAll(t, local, &c.opts); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d records from GCS, %d from the file", c.name, len(got), len(want))
		}
		if fetched.Bytes > c.most || sent > c.most {
			t.Errorf("%s: fetched %d bytes by the report, %d by the server, of %d (at most %d)", c.name, fetched.Bytes, sent, size, c.most)
		}
		if fetched.Bytes > sent || sent > fetched.Bytes+1<<20 || fetched.Requests > reqs || reqs > fetched.Requests+2 {
			t.Errorf("%s: the report says %+v, the server sent %d bytes in %d requests", c.name, fetched, sent, reqs)
		}
		t.Logf("%s: %d records, %d bytes in %d requests (file %d)", c.name, len(got), sent, reqs, size)
	}

	// Faults are retried.
	all := readAll(t, local, nil)
	for _, f := range []gcsserver.Fault{gcsserver.Drop, gcsserver.Error500, gcsserver.Short} {
		s.Inject(f, f)
		if got := readAll(t, remote, nil); !reflect.DeepEqual(got, all) {
			t.Errorf("fault %d: %d records, want %d", f, len(got), len(all))
		}
		if s.Pending() != 0 {
			t.Errorf("fault %d: not injected", f)
		}
	}

	// Replaced between the data set's open and the blocks. (Once a
	// reader has begun, its read-ahead may have fetched every block it
	// needs, all of the version opened: a replacement then is not seen,
	// and need not be.)
	r, err := remote.NewReader(ctx, &trevni.ReadOptions{Fields: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	other := slices.Clone(b)
	other[len(other)/2] ^= 1 // same size, other bytes: another generation
	s.Put(t, "bkt", "large.trv", other)
	for err == nil {
		_, err = r.Read()
	}
	if !errors.Is(err, objstore.ErrChanged) {
		t.Fatalf("reading an object replaced meanwhile: %v", err)
	}
}
