package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"github.com/trevni-go/trevni/shred"
)

// TestSplitConcat splits interoperability vectors by rows and by bytes
// and checks that concat of the parts gives the original's records, that
// every part is valid with the rows asked and the input's codec, and
// that existing parts are refused without --force and nothing is left by
// a refused run.
func TestSplitConcat(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "interop", "*", "*.deflate.crc32.trv"))
	if err != nil || len(files) < 3 {
		t.Fatalf("interop vectors: %d, %v", len(files), err)
	}
	for _, in := range files {
		rd, err := format.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		rows := rd.RowCount()
		rd.Close()
		want := runIn(t, nil, "tojson", in)
		if want.code != 0 {
			t.Fatalf("tojson %s: %s", in, want.stderr)
		}
		// Small parts: 7 rows, or about 25 parts of a large file (each
		// part is a file synced to disk).
		small := max(7, rows/25)
		// Parts of 2 KiB; in a plain go test, for a large file, of a
		// 25th of it (medium's 2 KiB parts are over 800 files, synced
		// one by one: seconds); TREVNI_LONG_TESTS=1 runs 2 KiB for all.
		bytesPart := "2KiB"
		if st, err := os.Stat(in); err != nil {
			t.Fatal(err)
		} else if kib := st.Size() / 25 >> 10; kib > 2 && !longtest.On() {
			bytesPart = strconv.FormatInt(kib, 10) + "KiB"
		}
		for _, how := range [][]string{{"--rows", strconv.FormatInt(small, 10)}, {"--rows", "1000000"}, {"--bytes", bytesPart}} {
			dir := t.TempDir()
			prefix := filepath.Join(dir, "p")
			if r := runIn(t, nil, append(append([]string{"split", "--quiet"}, how...), in, prefix)...); r.code != 0 {
				t.Fatalf("split %v %s: %s", how, in, r.stderr)
			}
			parts, _ := filepath.Glob(prefix + "-*.trv")
			var got int64
			for k, p := range parts {
				if p != filepath.Join(dir, "p-"+pad5(k)+".trv") {
					t.Fatalf("part %d named %s", k, p)
				}
				// The parts are alike: the command checks the first, the
				// last and a few between (concat below reads them all).
				if k == 0 || k == len(parts)-1 || k%97 == 1 {
					if r := runIn(t, nil, "validate", "--quiet", p); r.code != 0 {
						t.Fatalf("validate %s: %s", p, r.stderr)
					}
				}
				prd, err := format.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				n := prd.RowCount()
				if prd.Codec() != "deflate" || prd.Checksum() != "crc32" {
					t.Errorf("%s: codec %s, checksum %s", p, prd.Codec(), prd.Checksum())
				}
				prd.Close()
				if how[0] == "--rows" && n != min(small, rows-got) && n != min(1000000, rows-got) {
					t.Errorf("%s: %d rows", p, n)
				}
				got += n
			}
			if got != rows || len(parts) == 0 {
				t.Fatalf("split %v %s: %d parts of %d rows, want %d", how, in, len(parts), got, rows)
			}
			if how[1] != "1000000" && how[0] == "--rows" && len(parts) != int((rows+small-1)/small) && rows > 0 {
				t.Errorf("split --rows %d of %d rows: %d parts", small, rows, len(parts))
			}
			all := filepath.Join(dir, "all.trv")
			if r := runIn(t, nil, append(append([]string{"concat", "--quiet"}, parts...), all)...); r.code != 0 {
				t.Fatalf("concat: %s", r.stderr)
			}
			if r := runIn(t, nil, "tojson", all); r.stdout != want.stdout {
				t.Fatalf("split %v %s, then concat: records differ", how, in)
			}
		}
	}

	dir := t.TempDir()
	prefix := filepath.Join(dir, "q")
	in := files[0]
	if r := runIn(t, nil, "split", "--quiet", "--rows", "400", in, prefix); r.code != 0 {
		t.Fatal(r.stderr)
	}
	before, _ := filepath.Glob(prefix + "-*")
	if err := os.Remove(before[len(before)-1]); err != nil {
		t.Fatal(err)
	}
	r := runIn(t, nil, "split", "--rows", "400", in, prefix)
	if r.code != 1 || !strings.Contains(r.stderr, "--force") {
		t.Errorf("existing parts without --force: status %d, %q", r.code, r.stderr)
	}
	if after, _ := filepath.Glob(prefix + "-*"); len(after) != len(before)-1 {
		t.Errorf("refused split left %d files, had %d", len(after), len(before)-1)
	}
	if r := runIn(t, nil, "split", "--quiet", "--force", "--rows", "400", in, prefix); r.code != 0 {
		t.Errorf("--force: %s", r.stderr)
	}
	for _, args := range [][]string{{"split", in, prefix}, {"split", "--rows", "5", "--bytes", "1KiB", in, prefix}, {"split", "--bytes", "lots", in, prefix}} {
		if r := runIn(t, nil, args...); r.code != 2 {
			t.Errorf("%v: status %d, %q", args, r.code, r.stderr)
		}
	}
	raw := filepath.Join("..", "..", "testdata", "interop", "raw_core", "raw_core.trv")
	if r := runIn(t, nil, "split", "--rows", "5", raw, filepath.Join(dir, "raw")); r.code != 1 || !strings.Contains(r.stderr, "avro.schema") {
		t.Errorf("file without avro.schema: status %d, %q", r.code, r.stderr)
	}
}

func pad5(k int) string { return fmt.Sprintf("%05d", k) }

// metaMap returns a file's metadata as a map, and its keys in order.
func metaMap(t *testing.T, path string) (map[string]string, []string) {
	t.Helper()
	rd, err := format.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	m := map[string]string{}
	var keys []string
	for i := range rd.Meta().Len() {
		m[rd.Meta().Key(i)] = string(rd.Meta().Value(i))
		keys = append(keys, rd.Meta().Key(i))
	}
	return m, keys
}

// TestSplitMetadataAndByBlocks splits a file carrying metadata of its
// own: every part, re-encoded or by blocks, has the input's file metadata;
// the parts of --by-blocks are cut where every column's block ends, hold
// at least --rows records (but the last) and join back, with concat, into
// the input byte for byte; --by-blocks --bytes keeps each part within the
// stored bytes asked where a run of blocks allows.
func TestSplitMetadataAndByBlocks(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.trv")
	java, err := format.Open(filepath.Join(interopDir, "email", "email.null.none.trv"))
	if err != nil {
		t.Fatal(err)
	}
	ar, err := assemble.NewAvroReader(java.Reader, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := format.WriterOptions{Codec: "snappy", Checksum: "crc32", BlockSize: 1}
	o.Meta.SetString("owner", "team-a")
	o.Meta.Set("x.bin", []byte{0, 0xff, 7})
	var buf bytes.Buffer
	aw, err := shred.NewAvroWriter(&buf, java.Meta().GetString("avro.schema"), &shred.Options{WriterOptions: o})
	if err != nil {
		t.Fatal(err)
	}
	for rec, err := range ar.All() {
		if err != nil {
			t.Fatal(err)
		}
		if err := aw.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	java.Close()
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	writeFileT(t, in, buf.Bytes())
	wantMeta, wantKeys := metaMap(t, in)
	if wantMeta["owner"] != "team-a" {
		t.Fatalf("input metadata %v", wantMeta)
	}
	want := runIn(t, nil, "tojson", in)
	for _, how := range [][]string{{"--rows", "40"}, {"--bytes", "3KiB"}, {"--by-blocks", "--rows", "40"}, {"--by-blocks", "--bytes", "6KiB"}} {
		prefix := filepath.Join(t.TempDir(), "p")
		if r := runIn(t, nil, append(append([]string{"split", "--quiet"}, how...), in, prefix)...); r.code != 0 {
			t.Fatalf("split %v: %+v", how, r)
		}
		parts, _ := filepath.Glob(prefix + "-*.trv")
		if len(parts) < 3 {
			t.Fatalf("split %v: %d parts", how, len(parts))
		}
		var recs strings.Builder
		for k, p := range parts {
			m, keys := metaMap(t, p)
			if !reflect.DeepEqual(m, wantMeta) {
				t.Errorf("split %v: %s's metadata %v, want %v", how, p, m, wantMeta)
			}
			r := runIn(t, nil, "tojson", p)
			recs.WriteString(r.stdout)
			if how[0] != "--by-blocks" {
				continue
			}
			if !slices.Equal(keys, wantKeys) {
				t.Errorf("split %v: %s's metadata keys %v, want %v", how, p, keys, wantKeys)
			}
			prd, err := format.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			if how[1] == "--rows" && k < len(parts)-1 && prd.RowCount() < 40 {
				t.Errorf("split %v: %s has %d rows", how, p, prd.RowCount())
			}
			if how[1] == "--bytes" {
				var stored int64
				multi := false
				for i := range prd.NumColumns() {
					blocks, _ := prd.Blocks(i)
					multi = multi || len(blocks) > 1
					for _, b := range blocks {
						stored += int64(b.CompressedSize) + 4
					}
				}
				if stored > 6<<10 && multi {
					t.Errorf("split %v: %s holds %d stored bytes", how, p, stored)
				}
			}
			prd.Close()
		}
		if recs.String() != want.stdout {
			t.Errorf("split %v: the parts' records differ from the input's", how)
		}
		if how[0] == "--by-blocks" {
			joined := filepath.Join(t.TempDir(), "all.trv")
			if r := runIn(t, nil, "concat", "--quiet", prefix+"-*.trv", joined); r.code != 0 {
				t.Fatalf("concat: %+v", r)
			}
			got, _ := os.ReadFile(joined)
			if !bytes.Equal(got, buf.Bytes()) {
				t.Errorf("split %v, then concat: not the input's bytes", how)
			}
		}
	}
}
