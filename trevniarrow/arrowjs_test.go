package trevniarrow_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/trevniarrow"
	"github.com/trevni-go/trevni/typemap"
)

// jsRead is what Arrow's JavaScript library read from one IPC file or
// stream: its row count and rows (testdata/arrowjs.mjs says how each
// type is rendered).
type jsRead struct {
	File  string           `json:"file"`
	Count int64            `json:"count"`
	Types []string         `json:"types"`
	Rows  []map[string]any `json:"rows"`
}

// readArrowJS reads Arrow IPC files or streams with Arrow's JavaScript
// library.
func readArrowJS(t *testing.T, files []string) map[string]jsRead {
	t.Helper()
	node, dir := ducktest.Node(t, ducktest.ArrowJS)
	cmd := exec.Command(node, append([]string{"testdata/arrowjs.mjs", dir}, files...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("Arrow JS: %v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var reads []jsRead
	if err := dec.Decode(&reads); err != nil {
		t.Fatal(err)
	}
	m := map[string]jsRead{}
	for _, r := range reads {
		m[r.File] = r
	}
	return m
}

// matchJS checks that d, a value Arrow's JavaScript library read (as
// arrowjs.mjs renders it), is v, a goavro native value of s.
func matchJS(s *schema.Schema, v, d any) error {
	switch s.Kind {
	case schema.Union:
		i, inner, err := typemap.ResolveUnion(s, v)
		if err != nil {
			return err
		}
		if len(s.Branches) == 2 && (s.Branches[0].Kind == schema.Null || s.Branches[1].Kind == schema.Null) {
			if v == nil {
				if d != nil {
					return fmt.Errorf("null read as %v", d)
				}
				return nil
			}
			return matchJS(s.Branches[i], inner, d)
		}
		m, ok := d.(map[string]any)
		key := strconv.Itoa(i)
		if _, taken := m[key]; !ok || len(m) != 1 || !taken {
			return fmt.Errorf("branch %d read as %v", i, d)
		}
		if err := matchJS(s.Branches[i], inner, m[key]); err != nil {
			return fmt.Errorf("branch %d: %w", i, err)
		}
		return nil
	case schema.Null:
		if d != nil {
			return fmt.Errorf("null read as %v", d)
		}
		return nil
	case schema.Record:
		m, ok := d.(map[string]any)
		if !ok || len(m) != len(s.Fields) {
			return fmt.Errorf("record of %d fields read as %v", len(s.Fields), d)
		}
		rv := v.(map[string]any)
		for _, f := range s.Fields {
			if err := matchJS(f.Type, rv[f.Name], m[f.Name]); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
		}
		return nil
	case schema.Array:
		a, ok := d.([]any)
		va := v.([]any)
		if !ok || len(a) != len(va) {
			return fmt.Errorf("array of %d read as %v", len(va), d)
		}
		for i := range va {
			if err := matchJS(s.Items, va[i], a[i]); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	case schema.Map:
		a, ok := d.([]any)
		vm := v.(map[string]any)
		if !ok || len(a) != len(vm) {
			return fmt.Errorf("map of %d read as %v", len(vm), d)
		}
		for _, e := range a {
			kv, _ := e.(map[string]any)
			k, _ := kv["key"].(string)
			x, ok := vm[k]
			if !ok {
				return fmt.Errorf("map key %q read, not written", k)
			}
			if err := matchJS(s.Values, x, kv["value"]); err != nil {
				return fmt.Errorf("[%q]: %w", k, err)
			}
		}
		return nil
	case schema.Enum:
		if d != v {
			return fmt.Errorf("%v read as %v", v, d)
		}
		return nil
	}
	stored, err := typemap.ToStored(s, v)
	if err != nil {
		return err
	}
	var want string
	switch x := stored.(type) {
	case bool:
		if d != x {
			return fmt.Errorf("%v read as %v", x, d)
		}
		return nil
	case string:
		want = x
		if s.Logical == schema.LogicalUUID { // fixed_size_binary(16)
			want = strings.ToLower(strings.ReplaceAll(x, "-", ""))
		}
	case int32:
		want = strconv.FormatInt(int64(x), 10)
	case int64:
		want = strconv.FormatInt(x, 10)
	case float32:
		return matchJSFloat(float64(x), d)
	case float64:
		return matchJSFloat(x, d)
	case []byte:
		want = hex.EncodeToString(x)
		if s.Logical == schema.LogicalDecimal && s.Precision <= 76 {
			want = hex.EncodeToString(littleEndianDecimal(x, s.Precision))
		}
	default:
		return fmt.Errorf("no comparison for %T", stored)
	}
	if got := fmt.Sprint(d); got != want {
		return fmt.Errorf("%s (%s %s) read as %s", want, s.Kind, s.Logical, got)
	}
	return nil
}

// littleEndianDecimal returns a decimal's big-endian two's complement
// bytes as Arrow stores them: little-endian, sign-extended to 16 bytes
// (decimal128, precision up to 38) or 32 (decimal256).
func littleEndianDecimal(b []byte, precision int) []byte {
	n := 16
	if precision > 38 {
		n = 32
	}
	out := make([]byte, n)
	if len(b) > 0 && b[0]&0x80 != 0 {
		for i := range out {
			out[i] = 0xff
		}
	}
	for i := range min(len(b), n) {
		out[i] = b[len(b)-1-i]
	}
	return out
}

// matchJSFloat compares a float with the JSON number (or "NaN",
// "Infinity", "-Infinity") it was read as. JSON has no -0: it reads as 0.
func matchJSFloat(x float64, d any) error {
	var got float64
	switch t := d.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return err
		}
		got = f
	case string:
		switch t {
		case "NaN":
			got = math.NaN()
		case "Infinity":
			got = math.Inf(1)
		case "-Infinity":
			got = math.Inf(-1)
		default:
			return fmt.Errorf("float %v read as %q", x, t)
		}
	default:
		return fmt.Errorf("float %v read as %T", x, d)
	}
	if got != x && !(math.IsNaN(got) && math.IsNaN(x)) {
		return fmt.Errorf("float %v read as %v", x, got)
	}
	return nil
}

// Apache Arrow's JavaScript library, a reader independent of arrow-go,
// reads the IPC files and streams toarrow writes of every interop vector
// and of random schemas, in batches of a few rows: its row counts, and
// every value of every row, are the records'.
func TestArrowJSReadsIPC(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	type job struct {
		label string
		s     *schema.Schema
		want  []any
	}
	jobs := map[string]job{}
	var files []string
	add := func(label, name string) {
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ds.Close()
		var want []any
		for v, err := range ds.All(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, v)
		}
		stream := len(files)%2 == 1
		out := filepath.Join(dir, fmt.Sprintf("%d.arrow", len(files)))
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		opts := &trevniarrow.IPCOptions{Stream: stream, Read: trevniarrow.ReadOptions{BatchRows: 7}}
		if _, err := trevniarrow.WriteIPC(ctx, f, ds, opts); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		jobs[out] = job{fmt.Sprintf("%s (stream %v)", label, stream), frontdoor.Schema(ds), want}
		files = append(files, out)
	}
	vectors, err := filepath.Glob("../testdata/interop/*/*.snappy.crc32.trv")
	if err != nil || len(vectors) < 8 {
		t.Fatalf("interop vectors: %v %v", vectors, err)
	}
	for _, v := range vectors {
		add(v, v)
	}
	for seed := range uint64(40) {
		name, _, _ := writeRandom(t, 3000+seed, int(seed%9)+1)
		add(fmt.Sprintf("random seed %d", 3000+seed), name)
	}
	reads := readArrowJS(t, files)
	for _, f := range files {
		j, got := jobs[f], reads[f]
		if got.Count != int64(len(j.want)) || len(got.Rows) != len(j.want) {
			t.Fatalf("%s: Arrow JS counts %d rows (%d read), want %d", j.label, got.Count, len(got.Rows), len(j.want))
		}
		for i, row := range got.Rows {
			var err error
			if j.s.Kind == schema.Record {
				err = matchJS(j.s, j.want[i], row)
			} else {
				err = matchJS(j.s, j.want[i], row[trevniarrow.ValueField])
			}
			if err != nil {
				t.Fatalf("%s: row %d: %v\nArrow JS types %v\nrow %v", j.label, i, err, got.Types, row)
			}
		}
	}
}
