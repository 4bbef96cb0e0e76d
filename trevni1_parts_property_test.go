package trevni

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/trevni1"
	"github.com/trevni-go/trevni/trevni1/convert"
)

// Random schemas and records, written as Trevni 2 parts and converted to
// Trevni 1 parts, read through the front door with random
// filters, offsets, row ranges and limits, on one worker and on three:
// the Trevni 1 parts, read in place through their column source, write
// byte for byte what the Trevni 2 parts write, and match as many records.
func TestTrevni1PartsProperty(t *testing.T) {
	ctx := context.Background()
	var compared, clean, refused int
	for seed := range uint64(40) {
		ds, s, recs := randomDataset(t, seed, 120)
		dir := t.TempDir()
		ok := true
		for _, p := range ds.Parts() {
			data, err := os.ReadFile(p.Name())
			if err != nil {
				t.Fatal(err)
			}
			rd2, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			var v1 bytes.Buffer
			// Small blocks give the nested columns several blocks each,
			// which the source cuts by rows.
			opts := &trevni1.WriterOptions{Codec: []string{"", trevni1.CodecDeflate, trevni1.CodecSnappy}[seed%3], BlockSize: []int{64, 500, 0}[seed/3%3]}
			if _, err := convert.FromV2(ctx, &v1, rd2, opts); err != nil {
				// A schema version 1 cannot lay out (a union of several
				// branches, say) is refused as a schema error.
				if !strings.Contains(err.Error(), "version 1") && !errors.Is(err, trevni1.ErrFormat) {
					t.Logf("seed %d: %v", seed, err)
				}
				ok = false
				break
			}
			name := filepath.Join(dir, filepath.Base(strings.TrimSuffix(p.Name(), ".trv"))+".trv1")
			if err := os.WriteFile(name, v1.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if !ok {
			refused++
			continue
		}
		ds1, err := Open(ctx, dir, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		r := rand.New(rand.NewPCG(seed, 33))
		exprs := compiledExprs(t, r, s, recs)
		for k := range 4 {
			o := drawReadOptions(t, r, exprs, k, ds.RowCount())
			out := outputs[(k+int(seed))%len(outputs)]
			want := writeWith(t, ctx, ds, o, 1, 0, out.write)
			for _, w := range []int{1, 3} {
				got := writeWith(t, ctx, ds1, o, w, 1+r.Int64N(9), out.write)
				if d := sameAcrossFormats(want, got); d != "" {
					t.Fatalf("seed %d, %s, %+v, %d workers: %s", seed, out.name, o, w, d)
				}
				compared++
				if got.err == nil && len(got.out) > 0 {
					clean++
				}
			}
		}
	}
	t.Logf("%d comparisons (%d read without an error), %d schemas refused by version 1", compared, clean, refused)
	if compared < 24 || clean < compared/2 {
		t.Fatalf("only %d comparisons (%d schemas refused)", compared, refused)
	}
}

// sameAcrossFormats reports whether two runs over the same records in
// different formats wrote the same and matched as many records; an error
// is the same when both fail (their messages name different files).
func sameAcrossFormats(a, b written) string {
	if (a.err == nil) != (b.err == nil) {
		return "errors differ:\n" + errText(a.err) + "\n" + errText(b.err)
	}
	if a.err != nil {
		return ""
	}
	a.err, b.err = nil, nil
	return same(a, b)
}

func errText(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}
