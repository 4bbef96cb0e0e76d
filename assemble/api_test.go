package assemble

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

const idSchema = `{"type":"record","name":"R","fields":[{"name":"id","type":"long"}]}`

// idFile holds records {"id": 0} to {"id": n-1}.
func idFile(t *testing.T, n int) *format.Reader {
	t.Helper()
	recs := make([]any, n)
	for i := range recs {
		recs[i] = map[string]any{"id": int64(i)}
	}
	b := shredPatched(t, idSchema, recs)
	rd := openBytes(t, b)
	return rd
}

// TestAll checks the iterator against Read, also stopping early.
func TestAll(t *testing.T) {
	rd := idFile(t, 10)
	ar, err := NewAvroReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ar.SeekRow(3); err != nil {
		t.Fatal(err)
	}
	ar.StopAt(8)
	var got []int64
	for v, err := range ar.All() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v.(map[string]any)["id"].(int64))
	}
	if fmt.Sprint(got) != "[3 4 5 6 7]" {
		t.Fatalf("All gives %v", got)
	}
	ar, _ = NewAvroReader(rd, nil)
	for range ar.All() {
		break
	}
	if v, err := ar.Read(); err != nil || v.(map[string]any)["id"] != int64(1) {
		t.Fatalf("after one record of All, Read gives %v, %v", v, err)
	}

	// An error is yielded once, and ends the iteration.
	recs := []any{map[string]any{"s": "ok"}, map[string]any{"s": "BADMARK"}, map[string]any{"s": "ok"}}
	b := shredPatched(t, `{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}`, recs, "BADMARK", "BAD\xffARK")
	rd = openBytes(t, b)
	ar, _ = NewAvroReader(rd, nil)
	var n, errs int
	for _, err := range ar.All() {
		n++
		if err != nil {
			errs++
			var se *schema.Error
			if !errors.As(err, &se) || se.Record != 1 {
				t.Fatalf("All: %v, want record 1's error", err)
			}
		}
	}
	if n != 2 || errs != 1 {
		t.Fatalf("All yielded %d times, %d errors; want 2 and 1", n, errs)
	}
}

// TestStopAtSaturates checks StopAt with rows beyond the file, at both
// ends, and with an offset.
func TestStopAtSaturates(t *testing.T) {
	rd := idFile(t, 5)
	for _, c := range []struct {
		seek, stop int64
		want       int
	}{{1, math.MaxInt64, 4}, {0, math.MaxInt64, 5}, {2, 3, 1}, {0, -5, 0}, {4, 2, 0}, {5, math.MaxInt64, 0}} {
		ar, err := NewAvroReader(rd, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ar.SeekRow(c.seek); err != nil {
			t.Fatal(err)
		}
		ar.StopAt(c.stop)
		n := 0
		for _, err := range ar.All() {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != c.want {
			t.Errorf("SeekRow(%d), StopAt(%d): %d records, want %d", c.seek, c.stop, n, c.want)
		}
	}
}

// TestOutputsStopWithContext checks that ToJSON, ToContainer and Validate
// stop when their context ends, saying so, and report progress.
func TestOutputsStopWithContext(t *testing.T) {
	rd := idFile(t, 3*checkEvery)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var progress []int64
	stop := func(rows int64) {
		progress = append(progress, rows)
		cancel()
	}
	ar, _ := NewAvroReader(rd, nil)
	n, err := ToJSON(ctx, io.Discard, ar, &JSONOptions{Progress: stop})
	if !errors.Is(err, context.Canceled) || n != 2*checkEvery || fmt.Sprint(progress) != fmt.Sprint([]int64{checkEvery}) {
		t.Errorf("ToJSON: %d records, %v, progress %v", n, err, progress)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	progress = nil
	ar, _ = NewAvroReader(rd, nil)
	n, err = ToContainer(ctx, io.Discard, ar, &ContainerOptions{Progress: stop})
	if !errors.Is(err, context.Canceled) || n != 2*checkEvery {
		t.Errorf("ToContainer: %d records, %v", n, err)
	}
	ar, _ = NewAvroReader(rd, nil)
	if err := ar.Validate(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Validate: %v", err)
	}
	// Without an end, all records, and progress at the end.
	progress = nil
	ar, _ = NewAvroReader(rd, nil)
	n, err = ToJSON(context.Background(), io.Discard, ar, &JSONOptions{Progress: func(rows int64) { progress = append(progress, rows) }})
	if err != nil || n != 3*checkEvery || progress[len(progress)-1] != n {
		t.Errorf("ToJSON: %d records, %v, progress %v", n, err, progress)
	}
}

// TestMatchField checks that the hook is consulted after names and
// aliases, and only then.
func TestMatchField(t *testing.T) {
	rd := idFile(t, 2)
	reader := `{"type":"record","name":"R","fields":[{"name":"key","type":"long"},{"name":"n","type":"int","default":3}]}`
	var asked []string
	match := func(rf *schema.Field, ws *schema.Schema) int {
		asked = append(asked, rf.Name)
		if rf.Name == "key" {
			return 0 // id
		}
		return -1
	}
	ar, err := NewAvroReader(rd, &Options{ReaderSchema: reader, MatchField: match})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ar.Read()
	if err != nil || fmt.Sprint(v) != "map[key:0 n:3]" || fmt.Sprint(asked) != "[key n]" {
		t.Fatalf("got %v, %v, asked for %v", v, err, asked)
	}
	if _, err := NewAvroReader(rd, &Options{ReaderSchema: reader}); !incompatibleAt(err, "key") {
		t.Fatalf("without the hook: %v", err)
	}
	// Matched by name first; a writer field is read by one reader field.
	asked = nil
	both := `{"type":"record","name":"R","fields":[{"name":"key","type":"long"},{"name":"id","type":"long"}]}`
	if _, err := NewAvroReader(rd, &Options{ReaderSchema: both, MatchField: match}); !incompatibleAt(err, "id") || fmt.Sprint(asked) != "[key]" {
		t.Fatalf("two fields reading one: %v (asked for %v)", err, asked)
	}
}

// nested returns a schema of records nested depth deep.
func nested(depth int) string {
	var b strings.Builder
	for i := range depth {
		fmt.Fprintf(&b, `{"type":"record","name":"R%d","fields":[{"name":"f","type":`, i)
	}
	b.WriteString(`"int"`)
	b.WriteString(strings.Repeat("}]}", depth))
	return b.String()
}

// TestLayoutOptions checks that a file of a schema deeper than the layout
// allows is refused with layout.ErrTooLarge, and read with Options.Layout
// raising the bound; the walk has no bound of its own.
func TestLayoutOptions(t *testing.T) {
	depth := layout.DefaultMaxDepth + 10
	text := nested(depth)
	rec := any(int32(7))
	for range depth {
		rec = map[string]any{"f": rec}
	}
	deep, err := layout.ParseStored(text, &layout.Options{MaxDepth: 2 * depth})
	if err != nil {
		t.Fatal(err)
	}
	lay, err := layout.New(deep, &layout.Options{MaxDepth: 2 * depth})
	if err != nil {
		t.Fatal(err)
	}
	var meta format.MetaData
	meta.SetString(layout.MetaAvroSchema, text)
	var file bytes.Buffer
	w, err := format.NewWriter(&file, lay.Metas(), &format.WriterOptions{Meta: meta})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRow(int32(7)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := format.NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewAvroReader(rd, nil); !errors.Is(err, layout.ErrTooLarge) {
		t.Fatalf("NewAvroReader: %v, want ErrTooLarge", err)
	}
	opts := &Options{Layout: &layout.Options{MaxDepth: 2 * depth}}
	for _, rp := range readPaths {
		ar, err := NewAvroReader(rd, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := rp.read(ar); err != nil {
			t.Fatalf("%s: %v", rp.name, err)
		}
	}
	ar, _ := NewAvroReader(rd, opts)
	if v, err := ar.Read(); err != nil || !avroEqual(v, rec) {
		t.Fatalf("Read: %v", err)
	}
}

func avroEqual(a, b any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// TestNilReader checks that a nil reader is an error, not a panic.
func TestNilReader(t *testing.T) {
	if _, err := NewAvroReader(nil, nil); err == nil {
		t.Fatal("NewAvroReader(nil) succeeded")
	}
}

// TestManyFieldsMatched checks the matching of reader fields to writer
// fields in a record of many fields (looked up by name through a map):
// by name in any order, by alias, the first of two writer fields of one
// name, a default for a field the file lacks; the same as for a record
// of few fields, searched in order.
func TestManyFieldsMatched(t *testing.T) {
	for _, n := range []int{8, 31, 32, 100} {
		var w, r strings.Builder
		w.WriteString(`{"type":"record","name":"W","fields":[`)
		r.WriteString(`{"type":"record","name":"W","fields":[{"name":"extra","type":"int","default":-1}`)
		rec := map[string]any{}
		for i := range n {
			if i > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(&w, `{"name":"f%d","type":"int"}`, i)
			rec[fmt.Sprintf("f%d", i)] = int32(i * 10)
		}
		for i := n - 1; i >= 0; i-- { // the reader's fields in reverse order
			if i == 3 {
				fmt.Fprintf(&r, `,{"name":"g3","aliases":["f3"],"type":"long"}`)
				continue
			}
			fmt.Fprintf(&r, `,{"name":"f%d","type":"int"}`, i)
		}
		w.WriteString(`]}`)
		r.WriteString(`]}`)
		rd := openBytes(t, shredPatched(t, w.String(), []any{rec}))
		ar, err := NewAvroReader(rd, &Options{ReaderSchema: r.String()})
		if err != nil {
			t.Fatalf("%d fields: %v", n, err)
		}
		v, err := ar.Read()
		if err != nil {
			t.Fatal(err)
		}
		got := v.(map[string]any)
		if len(got) != n+1 || got["extra"] != int32(-1) || got["g3"] != int64(30) || got[fmt.Sprintf("f%d", n-1)] != int32((n-1)*10) || got["f0"] != int32(0) {
			t.Fatalf("%d fields: %v", n, got)
		}
		for i := range n {
			if k := fmt.Sprintf("f%d", i); i != 3 && got[k] != int32(i*10) {
				t.Fatalf("%d fields: %s = %v", n, k, got[k])
			}
		}
		// A reader field whose alias names a writer field that another
		// reader field reads by name is refused.
		twice := strings.Replace(r.String(), `{"name":"extra","type":"int","default":-1}`, `{"name":"extra","aliases":["f1"],"type":"int"}`, 1)
		if _, err := NewAvroReader(rd, &Options{ReaderSchema: twice}); !incompatibleAt(err, "f1") {
			t.Fatalf("%d fields: two reader fields of one writer field: %v", n, err)
		}
	}
}
