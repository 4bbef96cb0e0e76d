package main

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zlib"
)

// intColumns returns n int columns, each of one block claiming rows rows
// and uncompressed bytes, holding data.
func intColumns(n int, rows, uncompressed int32, data []byte) []rawColumn {
	cols := make([]rawColumn, n)
	for i := range cols {
		cols[i] = rawColumn{
			meta:   [][2]string{{"trevni.name", fmt.Sprintf("c%d", i)}, {"trevni.type", "int"}},
			blocks: []rawBlock{{rows: rows, uncompressed: uncompressed, data: data}},
		}
	}
	return cols
}

// TestHostileDecompressionBombs: eight int columns whose bzip2 blocks each
// claim 1 GiB are refused before a byte is inflated; eight deflate blocks
// that really hold 60 MiB of zeros each (a 500 KB file) stay within the
// reader's block memory.
func TestHostileDecompressionBombs(t *testing.T) {
	dir := t.TempDir()
	garbage := bytes.Repeat([]byte("BZh91AY&SY"), 60)
	bomb := buildTrevni(1, [][2]string{{"trevni.codec", "bzip2"}}, intColumns(8, 1, 1<<30, garbage))
	var zeros bytes.Buffer
	fw, err := flate.NewWriter(&zeros, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	for range 60 {
		fw.Write(chunk)
	}
	fw.Close()
	inflating := buildTrevni(60<<20, [][2]string{{"trevni.codec", "deflate"}}, intColumns(8, 60<<20, 60<<20, zeros.Bytes()))
	for name, b := range map[string][]byte{"bomb.trv": bomb, "zeros.trv": inflating} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keep := []string{"bomb.trv", "zeros.trv"}
	for _, cmd := range []string{"dump", "validate"} {
		r := runLimited(t, dir, 20*time.Second, nil, cmd, "bomb.trv")
		if cmd == "validate" {
			// validate goes on after a problem: one line per column.
			if r.code != exitError || strings.Count(r.stderr, "--max-block-size") != 8 || r.rss > hostileRSS {
				t.Errorf("validate: %+v, %d MiB", r.result, r.rss>>20)
			}
			checkMessages(t, r.stderr, cmd)
			continue
		}
		checkHostile(t, r, cmd, "--max-block-size", dir, keep...)
	}
	// dump holds a block of every column at once: eight 60 MiB blocks do
	// not fit in 128 MiB. validate checks one column at a time, and so
	// reads the file within the same bound.
	r := runLimited(t, dir, 60*time.Second, nil, "dump", "--block-memory", "128MiB", "zeros.trv")
	checkHostile(t, r, "dump", "--block-memory", dir, keep...)
	r = runLimited(t, dir, 60*time.Second, nil, "validate", "--block-memory", "128MiB", "zeros.trv")
	if r.code != 0 || r.rss > hostileRSS {
		t.Errorf("validate within 128MiB: %+v, %d MiB", r.result, r.rss>>20)
	}
}

// TestHostileEndlessRecords: a file of 2^62 empty records validates at
// once (records that read no column cannot be invalid).
func TestHostileEndlessRecords(t *testing.T) {
	dir := t.TempDir()
	file := buildTrevni(1<<62, [][2]string{{"trevni.codec", "null"}, {"avro.schema", `{"type":"record","name":"E","fields":[]}`}}, nil)
	if err := os.WriteFile(filepath.Join(dir, "e.trv"), file, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runLimited(t, dir, 20*time.Second, nil, "validate", "e.trv")
	if r.code != 0 || r.elapsed > 10*time.Second || r.rss > hostileRSS {
		t.Fatalf("validate of 2^62 empty records: %+v, %v, %d MiB", r.result, r.elapsed, r.rss>>20)
	}
}

// TestHostileBlockSize: a block size the reader would refuse is refused by
// the writer, before anything is written.
func TestHostileBlockSize(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.avsc"), []byte(`"int"`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.jsonl"), []byte("1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runLimited(t, dir, 20*time.Second, nil, "fromjson", "--block-size", "1500000000", "--schema", "s.avsc", "in.jsonl", "out.trv")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--block-size") || r.rss > hostileRSS {
		t.Fatalf("--block-size 1500000000: %+v, %d MiB", r.result, r.rss>>20)
	}
	checkNoLeftovers(t, dir, "s.avsc", "in.jsonl")
}

// v1Block is one block of a hand-built version-1 file.
type v1Block struct {
	rows, uncompressed uint32
	data               []byte
}

// buildV1 lays out a version-1 file of int columns by hand: column i's
// block table is tables[tableOf[i]], so that columns can share one.
func buildV1(rows uint64, codec string, tables [][]v1Block, tableOf []int) []byte {
	str := func(b []byte, s string) []byte { return append(binary.AppendVarint(b, int64(len(s))), s...) }
	b := []byte("Trv\x01")
	b = binary.LittleEndian.AppendUint64(b, rows)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(tableOf)))
	if codec == "" {
		b = append(b, 0)
	} else {
		b = str(str(binary.AppendVarint(b, 1), "trevni.codec"), codec)
	}
	for i := range tableOf {
		b = str(str(binary.AppendVarint(b, 2), "trevni.name"), fmt.Sprintf("c%d", i))
		b = str(str(b, "trevni.type"), "int")
	}
	var body []byte
	at := make([]int, len(tables))
	for k, t := range tables {
		at[k] = len(body)
		body = binary.LittleEndian.AppendUint32(body, uint32(len(t)))
		for _, bl := range t {
			body = binary.LittleEndian.AppendUint32(body, bl.rows)
			body = binary.LittleEndian.AppendUint32(body, bl.uncompressed)
			body = binary.LittleEndian.AppendUint32(body, uint32(len(bl.data)))
		}
		for _, bl := range t {
			body = append(body, bl.data...)
		}
	}
	start := len(b) + 8*len(tableOf)
	for _, k := range tableOf {
		b = binary.LittleEndian.AppendUint64(b, uint64(start+at[k]))
	}
	return append(b, body...)
}

// zlibZeros returns a zlib stream of mib MiB of zeros (about 1 KiB a MiB)
// without compressing them all: one MiB compressed by a fresh compressor
// and flushed to a byte boundary is a run of non-final blocks whose
// matches reach back only into that MiB, so it can be repeated; an empty
// final block and the Adler-32 of the zeros (a is 1, b the count modulo
// 65521) end the stream. Compressing the GiB took seconds.
func zlibZeros(mib int) []byte {
	var chunk bytes.Buffer
	w, _ := flate.NewWriter(&chunk, flate.BestCompression)
	w.Write(make([]byte, 1<<20))
	w.Flush()
	out := []byte{0x78, 0xda} // deflate, 32 KiB window, best compression
	for range mib {
		out = append(out, chunk.Bytes()...)
	}
	out = append(out, 0x03, 0x00) // a final block of fixed codes, empty
	n := uint64(mib) << 20
	return binary.BigEndian.AppendUint32(out, uint32(n%65521)<<16|1)
}

// TestHostileV1BlockLimits: a version-1 file of eight bzip2 blocks each
// claiming 1 GiB is refused block by block, naming --max-block-size, in
// bounded memory; one column of a deflate block that inflates to 1 GiB
// while stating 4 MiB stops at its size.
func TestHostileV1BlockLimits(t *testing.T) {
	dir := t.TempDir()
	garbage := bytes.Repeat([]byte("BZh91AY&SY"), 60)
	tables := make([][]v1Block, 8)
	for i := range tables {
		tables[i] = []v1Block{{rows: 1, uncompressed: 1 << 30, data: garbage}}
	}
	// The bomb's construction, checked on a few MiB: zeros, checksum right.
	if z, err := zlib.NewReader(bytes.NewReader(zlibZeros(5))); err != nil {
		t.Fatal(err)
	} else if b, err := io.ReadAll(z); err != nil || len(b) != 5<<20 || bytes.ContainsFunc(b, func(r rune) bool { return r != 0 }) {
		t.Fatalf("zlibZeros(5): %d bytes, %v", len(b), err)
	}
	keep := writeFiles(t, dir, map[string][]byte{
		"bomb.trv":  buildV1(1, "bzip2", tables, []int{0, 1, 2, 3, 4, 5, 6, 7}),
		"zeros.trv": buildV1(1, "deflate", [][]v1Block{{{rows: 1, uncompressed: 4 << 20, data: zlibZeros(1024)}}}, []int{0}),
	})
	r := runLimited(t, dir, 20*time.Second, nil, "dump", "bomb.trv")
	checkHostile(t, r, "dump", "--max-block-size", dir, keep...)
	r = runLimited(t, dir, 20*time.Second, nil, "validate", "bomb.trv")
	if r.code != exitError || strings.Count(r.stderr, "--max-block-size") != 8 || r.rss > hostileRSS {
		t.Errorf("validate: %+v, %d MiB", r.result, r.rss>>20)
	}
	checkMessages(t, r.stderr, "validate")
	// The limit is the flag's: lowered, it refuses the 4 MiB block too.
	r = runLimited(t, dir, 20*time.Second, nil, "validate", "--max-block-size", "1MiB", "zeros.trv")
	checkHostile(t, r, "validate", "--max-block-size", dir, keep...)
	r = runLimited(t, dir, 60*time.Second, nil, "validate", "zeros.trv")
	checkHostile(t, r, "validate", "size", dir, keep...)
}

// sharedV2 returns a version-2 file of cols int columns that all start at
// one block table of blocks one-row blocks.
func sharedV2(cols, blocks int) []byte {
	h := []byte("Trv\x02")
	h = binary.LittleEndian.AppendUint64(h, uint64(blocks))
	h = binary.LittleEndian.AppendUint32(h, uint32(cols))
	h = append(h, 0) // no file metadata
	for i := range cols {
		name := fmt.Sprintf("c%d", i)
		h = binary.AppendVarint(h, 2)
		for _, s := range []string{"trevni.name", name, "trevni.type", "int"} {
			h = append(binary.AppendVarint(h, int64(len(s))), s...)
		}
	}
	start := len(h) + 8*cols
	for range cols {
		h = binary.LittleEndian.AppendUint64(h, uint64(start))
	}
	h = binary.LittleEndian.AppendUint32(h, uint32(blocks))
	for range blocks {
		h = binary.LittleEndian.AppendUint32(h, 1)
		h = binary.LittleEndian.AppendUint32(h, 1)
		h = binary.LittleEndian.AppendUint32(h, 1)
	}
	return append(h, make([]byte, blocks)...)
}

// TestHostileSharedBlockTables: columns that all start at one block table
// (500 over 100,000 blocks in version 2, 2,000 over 100,000 in version 1,
// files of about 1.2 MB) are refused at once by every command, in bounded
// memory.
func TestHostileSharedBlockTables(t *testing.T) {
	dir := t.TempDir()
	table := make([]v1Block, 100_000)
	for b := range table {
		table[b] = v1Block{rows: 1, uncompressed: 1, data: []byte{2}}
	}
	keep := writeFiles(t, dir, map[string][]byte{
		"v2.trv": sharedV2(500, 100_000),
		"v1.trv": buildV1(uint64(len(table)), "", [][]v1Block{table}, make([]int, 2000)),
	})
	for _, name := range []string{"v2.trv", "v1.trv"} {
		for _, args := range [][]string{{"meta", "--blocks"}, {"meta"}, {"dump"}, {"validate"}, {"tojson"}} {
			r := runLimited(t, dir, 20*time.Second, nil, append(args, name)...)
			if r.code == 0 {
				t.Errorf("%s %q: exit 0", name, args)
				continue
			}
			checkHostile(t, r, args[0], "starts too", dir, keep...)
		}
	}
}

// manyColumnsCLMN returns a CLMN file of n INT32 columns of one row.
func manyColumnsCLMN(n int) []byte {
	var stream bytes.Buffer
	z := zlib.NewWriter(&stream)
	z.Write([]byte{0, 0, 0, 7})
	z.Close()
	h := binary.BigEndian.AppendUint16([]byte("CLMN"), 1)
	h = binary.BigEndian.AppendUint32(h, uint32(n))
	h = binary.BigEndian.AppendUint64(h, 1)
	size := len(h)
	for i := range n {
		size += 19 + len(strconv.Itoa(i))
	}
	for i := range n {
		name := strconv.Itoa(i)
		h = binary.BigEndian.AppendUint16(h, uint16(len(name)))
		h = append(h, name...)
		h = append(h, 0) // INT32
		h = binary.BigEndian.AppendUint32(h, 4)
		h = binary.BigEndian.AppendUint32(h, uint32(stream.Len()))
		h = binary.BigEndian.AppendUint64(h, uint64(size+i*stream.Len()))
	}
	for range n {
		h = append(h, stream.Bytes()...)
	}
	return h
}

// csvHeader returns a CSV of one header row of n columns and one record.
func csvHeader(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "c%d", i)
	}
	b.WriteString("\n1" + strings.Repeat(",1", n-1) + "\n")
	return b.Bytes()
}

// TestHostileColumnCounts: a CLMN file of 65,536 one-row columns reads in
// bounded memory, and --max-columns applies to it; a CSV header of 3
// million columns stops at the limit while it is read, whether the output
// is Trevni or CLMN, and no CLMN file of more columns than readers accept
// is written.
func TestHostileColumnCounts(t *testing.T) {
	dir := t.TempDir()
	keep := writeFiles(t, dir, map[string][]byte{
		"wide.clmn": manyColumnsCLMN(1 << 16),
		"wide.csv":  csvHeader(3_000_000),
		"100k.csv":  csvHeader(100_000),
	})
	// The front door reads a CLMN file's records through a Trevni 2 copy
	// (trevni.Dataset): its writer, its reader and the schema of 65,536
	// fields, parsed by each layer, hold some kilobytes a column, bounded
	// by the column limit: a live heap of up to 450 MB at the end, and a
	// peak resident set of 571 to 650 MiB with the collector's headroom
	// (2026-11-26, runs alone and beside other tests), which three times
	// hostileRSS holds.
	r := runLimited(t, dir, 60*time.Second, nil, "tojson", "wide.clmn", "out.jsonl")
	if r.code != 0 || r.rss > 3*hostileRSS {
		t.Errorf("tojson of 65,536 columns: %+v, %d MiB", r.result, r.rss>>20)
	}
	os.Remove(filepath.Join(dir, "out.jsonl"))
	r = runLimited(t, dir, 20*time.Second, nil, "tojson", "--max-columns", "1000", "wide.clmn", "out.jsonl")
	checkHostile(t, r, "tojson", "--max-columns", dir, keep...)
	for _, args := range [][]string{
		{"fromcsv", "--max-columns", "10", "wide.csv", "out.trv"},
		{"fromcsv", "--max-columns", "10", "wide.csv", "out.clmn"},
		{"fromcsv", "wide.csv", "out.trv"},
		{"fromcsv", "100k.csv", "out.clmn"},
	} {
		r := runLimited(t, dir, 20*time.Second, nil, args...)
		checkHostile(t, r, "fromcsv", "line 1, column", dir, keep...)
		if !strings.Contains(r.stderr, "--max-columns") || !strings.Contains(r.stderr, ".csv") {
			t.Errorf("%q: %s", args, r.stderr)
		}
		if args[1] == "--max-columns" && r.elapsed > 5*time.Second {
			t.Errorf("%q took %v", args, r.elapsed)
		}
	}
}

// TestHostileLargeValue: a CSV cell larger than the largest block readers
// accept is refused when written, naming the record, the field and the
// flag, instead of making a file that cannot be read back; within the
// limit it is written and read.
func TestHostileLargeValue(t *testing.T) {
	dir := t.TempDir()
	keep := writeFiles(t, dir, map[string][]byte{
		"big.csv": []byte("id,text\n1,small\n2," + strings.Repeat("x", 2<<20) + "\n"),
	})
	r := runLimited(t, dir, 20*time.Second, nil, "fromcsv", "--max-block-size", "1MiB", "big.csv", "out.trv")
	checkHostile(t, r, "fromcsv", `field text`, dir, keep...)
	if !strings.Contains(r.stderr, "record 1") || !strings.Contains(r.stderr, "--max-block-size") {
		t.Errorf("fromcsv: %s", r.stderr)
	}
	r = runLimited(t, dir, 20*time.Second, nil, "fromcsv", "--max-block-size", "4MiB", "big.csv", "out.trv")
	if r.code != 0 {
		t.Fatalf("fromcsv within 4MiB: %+v", r.result)
	}
	r = runLimited(t, dir, 20*time.Second, nil, "validate", "--max-block-size", "4MiB", "out.trv")
	if r.code != 0 {
		t.Fatalf("validate within 4MiB: %+v", r.result)
	}
}
