package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/longtest"
)

var validateOK = regexp.MustCompile(`^(.+): ok: \d+ rows?, \d+ columns?, \d+ blocks? checked\n$`)

// TestValidateInterop validates every interop file, including Java's
// null-codec files with all-zero CRCs, which are tolerated.
func TestValidateInterop(t *testing.T) {
	for _, file := range interopTrv(t) {
		r := runIn(t, nil, "validate", file)
		if r.code != 0 || r.stderr != "" || !validateOK.MatchString(r.stdout) {
			t.Errorf("%s: exit status %d, stdout %q, stderr %q", file, r.code, r.stdout, r.stderr)
		}
	}
	r := runIn(t, nil, "validate", filepath.Join(interopDir, "raw_core", "raw_core.trv"))
	if want := "ok: 40000 rows, 12 columns, 32 blocks checked\n"; !strings.HasSuffix(r.stdout, want) {
		t.Errorf("raw_core: got %q, want %q", r.stdout, want)
	}
}

// TestValidateStrict rejects Java's all-zero CRCs with --strict, one line
// per block.
func TestValidateStrict(t *testing.T) {
	file := filepath.Join(interopDir, "email", "email.null.crc32.trv")
	r := runIn(t, nil, "validate", "--strict", file)
	if r.code != exitError {
		t.Fatalf("exit status %d, want 1", r.code)
	}
	checkMessages(t, r.stderr, "validate")
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 12 || !strings.HasSuffix(lines[11], ": 11 problems found") || !strings.Contains(lines[0], "checksum mismatch") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if r := runIn(t, nil, "validate", "--strict", filepath.Join(interopDir, "email", "email.null.crc32-correct.trv")); r.code != 0 {
		t.Errorf("correct CRCs rejected: %s", r.stderr)
	}
}

// TestValidateCorrupt damages one block of each of two columns: both are
// reported, each on its own line naming the column.
func TestValidateCorrupt(t *testing.T) {
	file := filepath.Join(interopDir, "email", "email.null.crc32-correct.trv")
	data := readFile(t, file)
	data[3600] ^= 1  // column "from", whose data starts at 3588
	data[10010] ^= 1 // column "content", at 10000
	r := runIn(t, bytes.NewReader(data), "validate", "-")
	if r.code != exitError || r.stdout != "" {
		t.Fatalf("exit status %d, stdout %q", r.code, r.stdout)
	}
	checkMessages(t, r.stderr, "validate")
	want := []string{`column "from" (#2), block 0`, `column "content" (#4), block 0`, "standard input: 2 problems found"}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != len(want) {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d: %q lacks %q", i, lines[i], w)
		}
	}
}

// TestCorruptionNoPanic damages files byte by byte and runs every command
// on them in-process: each run succeeds or fails with messages in the
// tool's format, never with a panic.
func TestCorruptionNoPanic(t *testing.T) {
	t.Parallel()
	files := map[string]int{ // file: how many offsets to damage
		filepath.Join(interopDir, "tiny", "tiny_rle.trv"):             400,
		filepath.Join(interopDir, "tiny", "tiny_crc.trv"):             400,
		filepath.Join(interopDir, "email", "email.null.none.trv"):     300,
		filepath.Join(interopDir, "email", "email.deflate.crc32.trv"): 300,
		filepath.Join(interopDir, "raw_core", "raw_core.trv"):         8,
	}
	for file, offsets := range files {
		start := time.Now()
		data := readFile(t, file)
		if testing.Short() {
			offsets /= 8
		}
		// The default form damages every third offset of the long form's
		// (see longtest.Rounds).
		step := max(1, len(data)/offsets) * longtest.Rounds(3, 1)
		for off := 0; off < len(data); off += step {
			for _, flip := range []byte{0x01, 0x80, 0xff} {
				bad := append([]byte(nil), data...)
				bad[off] ^= flip
				for _, cmd := range []string{"meta", "dump", "validate"} {
					name := fmt.Sprintf("%s: %s, byte %d ^ %#x", cmd, filepath.Base(file), off, flip)
					r := runIn(t, bytes.NewReader(bad), cmd, "-")
					switch {
					case r.code == 0:
					case r.code == exitError:
						if cmd != "validate" && strings.Count(r.stderr, "\n") != 1 {
							t.Errorf("%s: not one line:\n%s", name, r.stderr)
						}
						checkMessages(t, r.stderr, cmd)
					default:
						t.Errorf("%s: exit status %d: %s", name, r.code, r.stderr)
					}
					if t.Failed() {
						t.FailNow()
					}
				}
			}
		}
		t.Logf("%s: %v", filepath.Base(file), time.Since(start))
	}
}

// TestValidateAvroLayer damages a file at the Avro layer only (an enum
// ordinal beyond the enum's symbols, a valid int to the format) and checks
// that validate finds it while the format-level checks pass.
func TestValidateAvroLayer(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(interopDir, "enum_fixed_bytes", "enum_fixed_bytes.null.none.trv")
	data := readFile(t, src)
	rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	i, ok := rd.ColumnIndex("e")
	if !ok {
		t.Fatal("no column e")
	}
	blocks, err := rd.Blocks(i)
	if err != nil {
		t.Fatal(err)
	}
	off := blocks[0].Offset // the first record's ordinal: one zig-zag byte
	if data[off] >= 0x80 {
		t.Fatalf("unexpected first byte %#x", data[off])
	}
	bad := append([]byte(nil), data...)
	bad[off] = 100 // ordinal 50 of a five-symbol enum
	file := filepath.Join(dir, "bad.trv")
	writeFileT(t, file, bad)
	r := runBin(t, nil, "validate", file)
	checkOneLineError(t, r, "validate")
	if !strings.Contains(r.stderr, "record 0") || !strings.Contains(r.stderr, "ordinal 50") {
		t.Errorf("the bad record is not named: %s", r.stderr)
	}
	// The good file passes both levels.
	if r := runBin(t, nil, "validate", src); r.code != 0 {
		t.Errorf("the original file: %+v", r)
	}
}

// TestValidateTrailingBytes checks that validate fails a file with bytes
// after its last column's data, saying how many and where, and passes
// the same file without them.
func TestValidateTrailingBytes(t *testing.T) {
	dir := t.TempDir()
	good := copyFile(t, filepath.Join(interopDir, "email", "email.deflate.crc32.trv"), dir, "good.trv")
	data := readFile(t, good)
	bad := filepath.Join(dir, "bad.trv")
	writeFileT(t, bad, append(bytes.Clone(data), "junk"...))
	if r := runIn(t, nil, "validate", good); r.code != exitOK {
		t.Fatalf("validate good.trv: status %d, stderr %q", r.code, r.stderr)
	}
	r := runIn(t, nil, "validate", bad)
	want := "offset " + strconv.Itoa(len(data)) + ": 4 bytes after the end of the last column's data"
	if r.code != exitError || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("validate bad.trv: status %d, stdout %q, stderr %q; want 1 and %q", r.code, r.stdout, r.stderr, want)
	}
	// A file appended to itself is the case of cat g.trv >> g.trv.
	writeFileT(t, bad, append(bytes.Clone(data), data...))
	if r := runIn(t, nil, "validate", bad); r.code != exitError || !strings.Contains(r.stderr, "after the end of the last column's data") {
		t.Errorf("validate of a doubled file: status %d, stderr %q", r.code, r.stderr)
	}
}
