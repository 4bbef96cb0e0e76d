package objstore_test

// The first of the three programs of docs/library.md ("Three programs"),
// the one that writes to S3 as well as locally: Avro to Trevni, filtered
// into a file of its own, read back as structs. The other two are in the
// core module's programs_test.go.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/stores/storetest/s3server"
)

// large is a struct of Java's medium vector (vec.Large).
type large struct {
	ID    int64    `avro:"id"`
	Score float64  `avro:"score"`
	Name  string   `avro:"name"`
	Tags  []string `avro:"tags"`
	Opt   *int32   `avro:"opt"`
}

// Avro to Trevni, filtered into a file of its own, locally and on S3, and
// read back as structs: what goavro's reading of the Avro file, filtered
// in Go, gives.
func TestProgramAvroFilterTrevniStructs(t *testing.T) {
	s3server.Start(t, "bkt")
	src := "../../testdata/interop/medium/input.avro"
	want := mediumFiltered(t, src, func(rec map[string]any) bool { return rec["score"].(float64) > 0.5 })
	for _, dir := range []string{t.TempDir(), "s3://bkt/events"} {
		// program
		ctx := context.Background()
		all, some := dir+"/all.trv", dir+"/high.trv"
		if _, err := trevni.ConvertAvro(ctx, all, src, nil); err != nil {
			t.Fatal(err)
		}
		ds, err := trevni.Open(ctx, all, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ds.Close()
		w, err := trevni.Create(ctx, some, ds.SchemaText(), &trevni.WriteOptions{Codec: trevni.Zstd})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		for rec, err := range ds.All(ctx, &trevni.ReadOptions{Where: "score > 0.5"}) {
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		high, err := trevni.Open(ctx, some, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer high.Close()
		var got []*large
		for e, err := range trevni.ReadStructs[large](ctx, high, nil) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, e)
		}
		// program
		if len(got) != len(want) || len(got) == 0 {
			t.Fatalf("%s: %d records, want %d", dir, len(got), len(want))
		}
		for i, e := range got {
			w := want[i]
			if e.ID != w.ID || e.Score != w.Score || e.Name != w.Name || fmt.Sprint(e.Tags) != fmt.Sprint(w.Tags) ||
				(e.Opt != nil) != w.hasOpt || (e.Opt != nil && *e.Opt != w.opt) {
				t.Fatalf("%s: record %d: %+v, want %+v (opt %d)", dir, i, *e, w.large, w.opt)
			}
		}
	}
}

// mediumRecord is a record of the medium vector as goavro reads it.
type mediumRecord struct {
	large
	opt    int32
	hasOpt bool
}

// mediumFiltered reads the Avro file src with goavro and returns the
// records keep keeps.
func mediumFiltered(t *testing.T, src string, keep func(map[string]any) bool) []mediumRecord {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	r, err := goavro.NewOCFReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []mediumRecord
	for r.Scan() {
		v, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		m := v.(map[string]any)
		if !keep(m) {
			continue
		}
		rec := mediumRecord{large: large{ID: m["id"].(int64), Score: m["score"].(float64), Name: m["name"].(string)}}
		for _, tag := range m["tags"].([]any) {
			rec.Tags = append(rec.Tags, tag.(string))
		}
		if u, ok := m["opt"].(map[string]any); ok {
			rec.opt, rec.hasOpt = u["int"].(int32), true
			rec.Opt = &rec.opt
		}
		out = append(out, rec)
	}
	return out
}
