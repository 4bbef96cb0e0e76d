package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/rangeserver"
	"github.com/trevni-go/trevni/remote"
)

// fetchFile writes, into dir, a Trevni file of 200,000 rows of eight
// columns with block statistics, its ids ascending (so that a filter on
// them skips blocks), and returns its path. The file is made once for the
// tests that read it (fetchBytes) and copied into each one's directory.
func fetchFile(t *testing.T, dir string) string {
	t.Helper()
	b, err := fetchBytes()
	if err != nil {
		t.Fatal(err)
	}
	trv := filepath.Join(dir, "wide.trv")
	writeFileT(t, trv, b)
	return trv
}

// fetchBytes makes fetchFile's file, once: fromjson of generated records.
var fetchBytes = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "trevni-fetch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	avsc := filepath.Join(dir, "wide.avsc")
	if err := os.WriteFile(avsc, []byte(`{"type":"record","name":"R","fields":[
		{"name":"id","type":"long"},{"name":"name","type":"string"},
		{"name":"a","type":"int"},{"name":"b","type":"double"},
		{"name":"c","type":"boolean"},{"name":"d","type":"string"},
		{"name":"e","type":"long"},{"name":"f","type":"float"}]}`), 0o644); err != nil {
		return nil, err
	}
	var jsonl bytes.Buffer
	x := uint64(88172645463325252)
	for i := range 200000 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		fmt.Fprintf(&jsonl, `{"id":%d,"name":"n%d","a":%d,"b":%d.25,"c":%t,"d":"d%x","e":%d,"f":%d.5}`+"\n",
			i, x%5000, int32(x), x%100000, x&1 == 0, x%65536, int64(x>>1), x%1000)
	}
	in := filepath.Join(dir, "wide.jsonl")
	if err := os.WriteFile(in, jsonl.Bytes(), 0o644); err != nil {
		return nil, err
	}
	trv := filepath.Join(dir, "wide.trv")
	var stderr strings.Builder
	if code := run([]string{"fromjson", "--quiet", "--schema", avsc, in, trv}, strings.NewReader(""), io.Discard, &stderr); code != 0 {
		return nil, fmt.Errorf("fromjson: status %d: %s", code, stderr.String())
	}
	return os.ReadFile(trv)
})

// columnBytes returns the bytes from a column's first block to the end of
// its last, and the stored bytes of its first block, of the Trevni file at
// path.
func columnBytes(t *testing.T, path string, col int) (all, first int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	rd, err := format.NewReader(f, fi.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := rd.Blocks(col)
	if err != nil {
		t.Fatal(err)
	}
	last := blocks[len(blocks)-1]
	return last.Offset + int64(last.CompressedSize) + 4 - blocks[0].Offset, int64(blocks[0].CompressedSize)
}

// headerBytes returns the bytes of the file's header: up to its first
// block (the first column's block table included).
func headerBytes(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	rd, err := format.NewReader(f, fi.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := rd.Blocks(0)
	if err != nil {
		t.Fatal(err)
	}
	return blocks[0].Offset
}

// TestCommandsFetchOnlyWhatTheyRead serves a file of several megabytes and
// counts the bytes the server sends for each command: the header-only
// commands fetch about the header, a filter its column, a head the first
// block of its field, and a column both filtered and selected is fetched
// (and read) once.
func TestCommandsFetchOnlyWhatTheyRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trv := fetchFile(t, dir)
	size := int64(len(readFile(t, trv)))
	header := headerBytes(t, trv)
	idAll, _ := columnBytes(t, trv, 0)
	_, nameFirst := columnBytes(t, trv, 1)
	s := serveDir(t, dir, 0)
	url := s.URL + "/wide.trv"
	// The header is fetched once, when the data set is opened (the part's
	// records are read with the bytes kept then): the first 8 KiB, then
	// as much again while the header goes on. What is read past it comes
	// in windows of 16 KiB where a read starts somewhere new, 64 KiB as it
	// goes on: meta reads each column's block table (for blockCount and
	// dataStart), one 16 KiB window each.
	const window, tableWindow = 64 << 10, 16 << 10
	headerOnly := max(2*header, remote.DefaultHeaderWindow)
	reportLine := regexp.MustCompile(`(\d+) of (\d+) blocks read`)
	for _, c := range []struct {
		args []string
		most int64 // the bytes the server may send
	}{
		{[]string{"meta", url}, headerOnly + 8*tableWindow},
		{[]string{"schema", url}, headerOnly},
		{[]string{"count", url}, headerOnly},
		{[]string{"count", "--where", "id < 1000", url}, headerOnly + idAll/8 + window},
		{[]string{"head", "-n", "3", "--fields", "name", url}, headerOnly + nameFirst + window},
		{[]string{"tojson", "--report", "--fields", "id", "--where", "id > 190000", url}, headerOnly + idAll/5 + window},
	} {
		settle(s)
		s.Reset()
		r := runIn(t, nil, c.args...)
		settle(s)
		sent := s.Sent.Load()
		t.Logf("%v: %d bytes of %d sent in %d requests (header %d, column id %d, first block of name %d)", c.args, sent, size, s.Requests.Load(), header, idAll, nameFirst)
		if r.code != 0 {
			t.Fatalf("%v: %+v", c.args, r)
		}
		if sent > c.most || sent > size/4 {
			t.Errorf("%v: the server sent %d bytes, more than %d", c.args, sent, min(c.most, size/4))
		}
		for _, m := range reportLine.FindAllStringSubmatch(r.stderr, -1) {
			read, _ := strconv.Atoi(m[1])
			blocks, _ := strconv.Atoi(m[2])
			if read > blocks {
				t.Errorf("%v: the report says %s", c.args, m[0])
			}
		}
	}
}

// settle waits until the server has sent nothing for 100ms: the count of a
// response's last bytes may come after the client has read them.
func settle(s *rangeserver.Server) {
	for {
		n := s.Sent.Load()
		time.Sleep(100 * time.Millisecond)
		if s.Sent.Load() == n {
			return
		}
	}
}
