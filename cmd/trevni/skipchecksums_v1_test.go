package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/clmn"
)

// --skip-checksums reaches Trevni 1 and CLMN files: a Trevni 1 file
// (null codec, CRC-32 blocks) with one letter of a string changed and a
// CLMN file with one byte of a column's Adler-32 changed are refused by
// default, the error naming the column, and read with the flag, the first
// with the letter changed; validate, which takes no such flag, refuses
// both.
func TestSkipChecksumsTrevni1AndCLMN(t *testing.T) {
	dir := t.TempDir()
	prim := filepath.Join(interopDir, "primitives")
	good1 := filepath.Join(dir, "good.trv1")
	if r := runIn(t, nil, "fromavro", "--quiet", "--version", "1", "--codec", "null", "--checksum", "crc32", filepath.Join(prim, "input.avro"), good1); r.code != 0 {
		t.Fatal(r.stderr)
	}
	data := readFile(t, good1)
	if bytes.Count(data, []byte("oxsovwmamcezoa")) != 1 {
		t.Fatal("the test's string is not in the file once")
	}
	bad1 := filepath.Join(dir, "bad.trv1")
	writeFileT(t, bad1, bytes.Replace(data, []byte("oxsovwmamcezoa"), []byte("OXSOVWMAMCEZOA"), 1))

	goodC := filepath.Join(dir, "good.clmn")
	if r := runIn(t, nil, "toclmn", "--quiet", "--fields", "i,l,d,s", filepath.Join(prim, "primitives.null.crc32-correct.trv"), goodC); r.code != 0 {
		t.Fatal(r.stderr)
	}
	data = readFile(t, goodC)
	rd, err := clmn.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := rd.Column(rd.Lookup("s"))
	data[s.Offset+s.CompressedSize-1] ^= 0x10 // the stream's Adler-32
	badC := filepath.Join(dir, "bad.clmn")
	writeFileT(t, badC, data)

	for _, c := range []struct {
		good, bad, says string
		changed         bool
	}{
		{good1, bad1, `column "s" (#6), block 0`, true},
		{goodC, badC, `column "s"`, false},
	} {
		for _, args := range [][]string{{"tojson"}, {"head", "-n", "600"}, {"count", "--where", "s >= 'A'"}} {
			want := runIn(t, nil, append(args, c.good)...)
			if want.code != 0 {
				t.Fatalf("%q of %s: %s", args, c.good, want.stderr)
			}
			r := runIn(t, nil, append(args, c.bad)...)
			if r.code != exitError || !strings.Contains(r.stderr, "checksum") || !strings.Contains(r.stderr, c.says) {
				t.Errorf("%q of %s: status %d, %s; want a checksum error naming %s", args, c.bad, r.code, r.stderr, c.says)
			}
			r = runIn(t, nil, append(append([]string{args[0], "--skip-checksums"}, args[1:]...), c.bad)...)
			wantOut := want.stdout
			if c.changed && args[0] != "count" {
				wantOut = strings.ReplaceAll(wantOut, "oxsovwmamcezoa", "OXSOVWMAMCEZOA")
			}
			if r.code != 0 || r.stdout != wantOut {
				t.Errorf("%q --skip-checksums of %s: status %d, %d bytes, want %d: %s", args, c.bad, r.code, len(r.stdout), len(wantOut), r.stderr)
			}
		}
		if r := runIn(t, nil, "validate", c.bad); r.code != exitError || !strings.Contains(r.stderr, "checksum") {
			t.Errorf("validate %s: status %d, %s", c.bad, r.code, r.stderr)
		}
		if r := runIn(t, nil, "validate", c.good); r.code != 0 {
			t.Errorf("validate %s: status %d, %s", c.good, r.code, r.stderr)
		}
	}
}
