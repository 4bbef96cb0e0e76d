package format

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format/stats"
)

// spec is the language-neutral description of a core-level file that the
// interop vectors raw_core and tiny/* ship: columns, and per row each
// column's values nested one list level per ancestor (plus one if the column
// is itself an array).
type spec struct {
	FileMeta map[string]string `json:"fileMeta"`
	Columns  []struct {
		Name   string            `json:"name"`
		Type   string            `json:"type"`
		Values bool              `json:"values"`
		Array  bool              `json:"array"`
		Parent string            `json:"parent"`
		Meta   map[string]string `json:"meta"`
	} `json:"columns"`
	Rows []map[string]any `json:"rows"`
	// Key order of the objects above, which Go maps lose.
	fileMetaKeys []string
	colMetaKeys  [][]string
}

func loadSpec(t testing.TB, name string) *spec {
	t.Helper()
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if raw, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	var s spec
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&s); err != nil {
		t.Fatal(err)
	}
	// Recover metadata key order from the text.
	var ordered struct {
		FileMeta orderedKeys                  `json:"fileMeta"`
		Columns  []struct{ Meta orderedKeys } `json:"columns"`
	}
	if err := json.Unmarshal(raw, &ordered); err != nil {
		t.Fatal(err)
	}
	s.fileMetaKeys = ordered.FileMeta
	for _, c := range ordered.Columns {
		s.colMetaKeys = append(s.colMetaKeys, c.Meta)
	}
	return &s
}

// orderedKeys decodes the keys of a JSON object in order.
type orderedKeys []string

func (o *orderedKeys) UnmarshalJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	if _, err := d.Token(); err != nil {
		return err
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		*o = append(*o, tok.(string))
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

// columns returns the spec's columns as ColumnMeta.
func (s *spec) columns(t testing.TB) []ColumnMeta {
	var cols []ColumnMeta
	for i, c := range s.Columns {
		typ, err := ParseValueType(c.Type)
		if err != nil {
			t.Fatal(err)
		}
		m := ColumnMeta{Name: c.Name, Type: typ, Values: c.Values, Array: c.Array, Parent: c.Parent}
		for _, k := range s.colMetaKeys[i] {
			m.Meta.SetString(k, c.Meta[k])
		}
		cols = append(cols, m)
	}
	return cols
}

// write writes the spec's rows through a Writer with the given options.
func (s *spec) write(t testing.TB, opts *WriterOptions) []byte {
	t.Helper()
	cols := s.columns(t)
	depth := make([]int, len(cols))
	index := map[string]int{}
	for i, c := range cols {
		index[c.Name] = i
		if c.Parent != "" {
			depth[i] = depth[index[c.Parent]] + 1
		}
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cols, opts)
	if err != nil {
		t.Fatal(err)
	}
	for r, row := range s.Rows {
		if err := w.StartRow(); err != nil {
			t.Fatal(err)
		}
		for i, c := range cols {
			v, ok := row[c.Name]
			if !ok {
				t.Fatalf("row %d lacks column %s", r, c.Name)
			}
			writeNested(t, w, i, c, v, depth[i])
		}
		if err := w.EndRow(); err != nil {
			t.Fatalf("row %d: %v", r, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeNested(t testing.TB, w *Writer, col int, c ColumnMeta, v any, depth int) {
	if depth > 0 {
		for _, e := range v.([]any) {
			writeNested(t, w, col, c, e, depth-1)
		}
		return
	}
	if c.Array {
		list := v.([]any)
		w.WriteLength(col, len(list))
		for _, e := range list {
			w.WriteValue(col, specValue(t, c.Type, e))
		}
		return
	}
	w.WriteValue(col, specValue(t, c.Type, v))
}

// specValue converts a JSON value of the spec to the Go value of type typ.
func specValue(t testing.TB, typ ValueType, v any) any {
	t.Helper()
	num := func() json.Number { return v.(json.Number) }
	switch typ {
	case Null:
		return nil
	case Boolean:
		return v.(bool)
	case Int, Fixed32, Long, Fixed64:
		n, err := strconv.ParseInt(string(num()), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	case Float:
		f, err := strconv.ParseFloat(string(num()), 32)
		if err != nil {
			t.Fatal(err)
		}
		return float32(f)
	case Double:
		f, err := strconv.ParseFloat(string(num()), 64)
		if err != nil {
			t.Fatal(err)
		}
		return f
	case String:
		return v.(string)
	case Bytes:
		b, err := hex.DecodeString(v.(string))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Fatalf("bad type %v", typ)
	return nil
}

// sameLogicalFile checks that two files have the same header and, column by
// column, the same block descriptors (compressed sizes aside) and the same
// uncompressed block bytes.
func sameLogicalFile(t *testing.T, want, got []byte) {
	t.Helper()
	sameLogicalFileStats(t, want, got, false)
}

// sameLogicalFileStats is sameLogicalFile for a got written with
// statistics (withStats): every column of got must then carry stats.MetaKey,
// decoding to the column's type and blocks, and otherwise match want.
func sameLogicalFileStats(t *testing.T, want, got []byte, withStats bool) {
	t.Helper()
	a, err := NewReader(bytes.NewReader(want), int64(len(want)), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewReader(bytes.NewReader(got), int64(len(got)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.RowCount() != b.RowCount() || a.NumColumns() != b.NumColumns() {
		t.Fatalf("rows/columns %d/%d, want %d/%d", b.RowCount(), b.NumColumns(), a.RowCount(), a.NumColumns())
	}
	if fmt.Sprint(a.Meta()) != fmt.Sprint(b.Meta()) {
		t.Fatalf("file metadata %v, want %v", b.Meta(), a.Meta())
	}
	for i := 0; i < a.NumColumns(); i++ {
		gotMeta := b.RawColumnMeta(i)
		var st *stats.Column
		if withStats {
			raw, ok := gotMeta.Get(stats.MetaKey)
			if !ok {
				t.Fatalf("column %d: no %s", i, stats.MetaKey)
			}
			var err error
			if st, err = stats.Decode(raw); err != nil {
				t.Fatalf("column %d: %s: %v", i, stats.MetaKey, err)
			}
			var rest MetaData
			for k := 0; k < gotMeta.Len(); k++ {
				if gotMeta.Key(k) != stats.MetaKey {
					rest.Set(gotMeta.Key(k), gotMeta.Value(k))
				}
			}
			gotMeta = &rest
		}
		if fmt.Sprint(a.RawColumnMeta(i)) != fmt.Sprint(gotMeta) {
			t.Fatalf("column %d metadata %v, want %v", i, gotMeta, a.RawColumnMeta(i))
		}
		ab, err := a.Blocks(i)
		if err != nil {
			t.Fatal(err)
		}
		bb, err := b.Blocks(i)
		if err != nil {
			t.Fatal(err)
		}
		if st != nil {
			cm, err := b.Column(i)
			if err != nil {
				t.Fatal(err)
			}
			if st.Type != stats.Type(cm.Type) || st.Array != cm.Array || len(st.Blocks) != len(bb) {
				t.Fatalf("column %d: statistics of a %v column (array %v) with %d blocks, want %v, %v, %d",
					i, st.Type, st.Array, len(st.Blocks), cm.Type, cm.Array, len(bb))
			}
			for k := range bb {
				if st.Blocks[k].Rows != bb[k].Rows {
					t.Fatalf("column %d block %d: statistics say %d rows, want %d", i, k, st.Blocks[k].Rows, bb[k].Rows)
				}
			}
		}
		if len(ab) != len(bb) {
			t.Fatalf("column %d: %d blocks, want %d", i, len(bb), len(ab))
		}
		ca, _ := a.Values(i)
		cb, _ := b.Values(i)
		for k := range ab {
			x, y := ab[k], bb[k]
			if x.Rows != y.Rows || x.UncompressedSize != y.UncompressedSize || !bytes.Equal(x.firstValue, y.firstValue) {
				t.Fatalf("column %d block %d: %+v, want %+v", i, k, y, x)
			}
			if err := ca.loadBlock(k); err != nil {
				t.Fatal(err)
			}
			if err := cb.loadBlock(k); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ca.data, cb.data) {
				t.Fatalf("column %d block %d: data differs", i, k)
			}
		}
	}
}

// TestWriteSpecsLikeJava writes the core-level vectors' rows and compares
// with Java's files: byte for byte with the null codec, block by block
// otherwise.
func TestWriteSpecsLikeJava(t *testing.T) {
	t.Parallel()
	cases := []struct{ spec, trv string }{
		{"tiny/tiny_int.spec.json", "tiny/tiny_int.trv"},
		{"tiny/tiny_rle.spec.json", "tiny/tiny_rle.trv"},
		{"tiny/tiny_crc.spec.json", "tiny/tiny_crc.trv"},
		{"raw_core/spec.json.gz", "raw_core/raw_core.trv"},
	}
	for _, tc := range cases {
		t.Run(tc.trv, func(t *testing.T) {
			s := loadSpec(t, filepath.Join(interopDir, tc.spec))
			java, err := os.ReadFile(filepath.Join(interopDir, tc.trv))
			if err != nil {
				t.Fatal(err)
			}
			opts := WriterOptions{DisableStats: true}
			for _, k := range s.fileMetaKeys {
				opts.Meta.SetString(k, s.FileMeta[k])
			}
			for _, conc := range []int{1, 3} {
				opts.Concurrency = conc
				got := s.write(t, &opts)
				sameLogicalFile(t, java, got)
				if !strings.Contains(string(java[:min(len(java), 4096)]), "deflate") {
					if !bytes.Equal(got, java) {
						t.Fatalf("bytes differ from Java's (%d vs %d bytes)", len(got), len(java))
					}
				}
			}
			// Statistics (the default) add only their key to each
			// column's metadata: blocks and data stay Java's.
			opts.DisableStats = false
			sameLogicalFileStats(t, java, s.write(t, &opts), true)
		})
	}
}
