package trevni_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/trevni-go/trevni"
)

// ownedSchema has every kind of value a struct's field may share with a
// reader: strings, bytes, arrays, maps, pointers and nested records.
const ownedSchema = `{"type":"record","name":"Owned","fields":[
	{"name":"id","type":"long"},
	{"name":"name","type":"string"},
	{"name":"raw","type":"bytes"},
	{"name":"tags","type":{"type":"array","items":"string"}},
	{"name":"attrs","type":{"type":"map","values":"long"}},
	{"name":"opt","type":["null","int"]},
	{"name":"pts","type":{"type":"array","items":{"type":"record","name":"Pt","fields":[
		{"name":"x","type":"double"},{"name":"labels","type":{"type":"array","items":"string"}}]}}}
]}`

type ownedPt struct {
	X      float64  `avro:"x"`
	Labels []string `avro:"labels"`
}

type owned struct {
	ID    int64            `avro:"id"`
	Name  string           `avro:"name"`
	Raw   []byte           `avro:"raw"`
	Tags  []string         `avro:"tags"`
	Attrs map[string]int64 `avro:"attrs"`
	Opt   *int32           `avro:"opt"`
	Pts   []ownedPt        `avro:"pts"`
}

// ownedFile writes n random records of ownedSchema as an Avro container
// file with goavro, and returns its name and goavro's own decoding of
// every record (read back from the container).
func ownedFile(t *testing.T, n int) (string, []map[string]any) {
	t.Helper()
	codec, err := goavro.NewCodec(ownedSchema)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 34))
	word := func() string { return fmt.Sprintf("w%d", rng.IntN(1000)) }
	var buf bytes.Buffer
	w, err := goavro.NewOCFWriter(goavro.OCFConfig{W: &buf, Codec: codec})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		tags := make([]any, rng.IntN(4))
		for k := range tags {
			tags[k] = word()
		}
		attrs := map[string]any{}
		for range rng.IntN(4) {
			attrs[word()] = rng.Int64N(1 << 40)
		}
		pts := make([]any, rng.IntN(3))
		for k := range pts {
			labels := make([]any, rng.IntN(3))
			for j := range labels {
				labels[j] = word()
			}
			pts[k] = map[string]any{"x": rng.Float64(), "labels": labels}
		}
		var opt any
		if rng.IntN(2) == 0 {
			opt = goavro.Union("int", rng.Int32())
		}
		raw := make([]byte, rng.IntN(8))
		for k := range raw {
			raw[k] = byte(rng.IntN(256))
		}
		rec := map[string]any{"id": int64(i), "name": word() + word(), "raw": raw, "tags": tags, "attrs": attrs, "opt": opt, "pts": pts}
		if err := w.Append([]any{rec}); err != nil {
			t.Fatal(err)
		}
	}
	name := filepath.Join(t.TempDir(), "owned.avro")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := goavro.NewOCFReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var want []map[string]any
	for r.Scan() {
		v, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, v.(map[string]any))
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return name, want
}

// sameOwned compares a struct read with goavro's decoding of the record.
func sameOwned(got *owned, want map[string]any) error {
	if got.ID != want["id"].(int64) || got.Name != want["name"].(string) || !bytes.Equal(got.Raw, want["raw"].([]byte)) {
		return fmt.Errorf("id, name or raw differ: got %d %q %x", got.ID, got.Name, got.Raw)
	}
	tags := want["tags"].([]any)
	if len(got.Tags) != len(tags) {
		return fmt.Errorf("tags: got %q, want %v", got.Tags, tags)
	}
	for i := range tags {
		if got.Tags[i] != tags[i].(string) {
			return fmt.Errorf("tags: got %q, want %v", got.Tags, tags)
		}
	}
	attrs := want["attrs"].(map[string]any)
	wantAttrs := make(map[string]int64, len(attrs))
	for k, v := range attrs {
		wantAttrs[k] = v.(int64)
	}
	if len(got.Attrs) != len(wantAttrs) || (len(wantAttrs) > 0 && !reflect.DeepEqual(got.Attrs, wantAttrs)) {
		return fmt.Errorf("attrs: got %v, want %v", got.Attrs, wantAttrs)
	}
	switch opt := want["opt"].(type) {
	case nil:
		if got.Opt != nil {
			return fmt.Errorf("opt: got %d, want null", *got.Opt)
		}
	case map[string]any:
		if got.Opt == nil || *got.Opt != opt["int"].(int32) {
			return fmt.Errorf("opt: got %v, want %v", got.Opt, opt["int"])
		}
	}
	pts := want["pts"].([]any)
	if len(got.Pts) != len(pts) {
		return fmt.Errorf("pts: got %d, want %d", len(got.Pts), len(pts))
	}
	for i, p := range pts {
		pm := p.(map[string]any)
		labels := pm["labels"].([]any)
		if got.Pts[i].X != pm["x"].(float64) || len(got.Pts[i].Labels) != len(labels) {
			return fmt.Errorf("pts[%d]: got %v, want %v", i, got.Pts[i], pm)
		}
		for j := range labels {
			if got.Pts[i].Labels[j] != labels[j].(string) {
				return fmt.Errorf("pts[%d].labels: got %q, want %v", i, got.Pts[i].Labels, labels)
			}
		}
	}
	return nil
}

// Every value ReadStructs yields is the caller's: a read of several
// batches that keeps every *T (and shallow copies of them) finds each
// equal, at the end, to goavro's decoding of the same record, on one
// goroutine and on several, with a filter too.
func TestReadStructsValuesAreTheCallers(t *testing.T) {
	ctx := context.Background()
	const n = 3*4096 + 123
	src, want := ownedFile(t, n)
	dst := filepath.Join(t.TempDir(), "owned.trv")
	if _, err := trevni.ConvertAvro(ctx, dst, src, &trevni.WriteOptions{BlockSize: 4 << 10}); err != nil {
		t.Fatal(err)
	}
	ds, err := trevni.Open(ctx, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	for _, tc := range []struct {
		name string
		opts trevni.ReadOptions
	}{
		{"one goroutine", trevni.ReadOptions{}},
		{"three workers", trevni.ReadOptions{Workers: 3, OutputMemory: 256 << 10}},
		{"filter", trevni.ReadOptions{Where: "id >= 100", Workers: 2}},
	} {
		var kept []*owned
		var copies []owned
		for v, err := range trevni.ReadStructs[owned](ctx, ds, &tc.opts) {
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			kept = append(kept, v)
			copies = append(copies, *v) // a shallow copy, as a caller makes
		}
		first := 0
		if tc.opts.Where != "" {
			first = 100
		}
		if len(kept) != n-first {
			t.Fatalf("%s: %d records, want %d", tc.name, len(kept), n-first)
		}
		for i := range kept {
			if err := sameOwned(kept[i], want[first+i]); err != nil {
				t.Fatalf("%s: record %d kept: %v", tc.name, first+i, err)
			}
			if err := sameOwned(&copies[i], want[first+i]); err != nil {
				t.Fatalf("%s: record %d copied: %v", tc.name, first+i, err)
			}
		}
	}
	// With Reuse the batches are refilled: the values kept from the
	// first batch are no longer the first records (what the option
	// promises, and what the default must not do).
	var kept []*owned
	for v, err := range trevni.ReadStructs[owned](ctx, ds, &trevni.ReadOptions{Reuse: true}) {
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, v)
	}
	if kept[0] != kept[4096*3] {
		t.Fatalf("with Reuse, record 0 and record %d are not one value: the batches were not refilled", 4096*3)
	}
}
