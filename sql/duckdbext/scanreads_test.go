package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
)

// bigFile writes a Trevni file of rows records of four columns (a long,
// b string, c double, d long) in blocks of 4 KiB, uncompressed, and
// returns its path, size, the bytes before its first column (header and
// metadata) and the bytes of column a (its blocks and descriptors).
func bigFile(t *testing.T, dir string, rows int) (path string, size, head, colA int64) {
	t.Helper()
	ctx := context.Background()
	path = filepath.Join(dir, "big.trv")
	w, err := trevni.Create(ctx, path, `{"type":"record","name":"Big","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"},{"name":"c","type":"double"},{"name":"d","type":"long"}]}`,
		&trevni.WriteOptions{Codec: trevni.NoCodec, BlockSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if err := w.Write(map[string]any{"a": int64(i), "b": fmt.Sprintf("row %08d of the big file", i), "c": float64(i) / 3, "d": int64(i) * 7}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ds, err := trevni.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	f, err := ds.Parts()[0].Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := frontdoor.TrevniReader(f)
	_, colA = rd.ColumnRange(0)
	return path, rd.Size(), rd.ColumnStart(0), colA
}

// countingServer serves a directory over HTTP, counting the requests and
// bytes of each path, each response held back by delay.
type countingServer struct {
	*httptest.Server
	delay time.Duration
	mu    sync.Mutex
	reqs  map[string]int64
	bytes map[string]int64
	times map[string][]time.Time // when each request of a path came
}

func newCountingServer(t *testing.T, dir string, delay time.Duration) *countingServer {
	s := &countingServer{delay: delay, reqs: map[string]int64{}, bytes: map[string]int64{}, times: map[string][]time.Time{}}
	files := http.FileServer(http.Dir(dir))
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs[r.URL.Path]++
		s.times[r.URL.Path] = append(s.times[r.URL.Path], time.Now())
		s.mu.Unlock()
		time.Sleep(s.delay)
		cw := &countingWriter{ResponseWriter: w}
		files.ServeHTTP(cw, r)
		s.mu.Lock()
		s.bytes[r.URL.Path] += cw.n.Load()
		s.mu.Unlock()
	}))
	t.Cleanup(s.Close)
	return s
}

// counts returns the requests and bytes served of path so far.
func (s *countingServer) counts(path string) (reqs, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs[path], s.bytes[path]
}

type countingWriter struct {
	http.ResponseWriter
	n atomic.Int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.n.Add(int64(n))
	return n, err
}

// TestProjectionAndLimitRead checks what a scan reads, counted by the
// HTTP server of the file: a query naming one column reads that column's
// blocks and the file's header, not the others' (projection pushdown),
// and a LIMIT 10 over the whole file stops after a few blocks.
func TestProjectionAndLimitRead(t *testing.T) {
	dir := t.TempDir()
	_, size, head, colA := bigFile(t, dir, 200000)
	srv := newCountingServer(t, dir, 0)
	url := srv.URL + "/big.trv"
	rs := runDuckDB(t, step{SQLs: []string{load(t), fmt.Sprintf("SELECT sum(a) FROM read_trevni(%s)", quote(url))}})
	must(t, rs[0])
	if s := fmt.Sprint(must(t, rs[1]).Rows); s != "[[19999900000]]" {
		t.Errorf("sum(a): %s", s)
	}
	reqs, served := srv.counts("/big.trv")
	t.Logf("sum(a): %d requests, %d bytes of the file's %d (header %d, column a %d)", reqs, served, size, head, colA)
	// The bind reads the header (here 100 KB: the block statistics of
	// 4 KiB blocks), which the units' opens reuse; beyond it only column
	// a, its block table once for all the units, and the few blocks
	// holding rows of two units again: 32 KiB more at most. Each unit
	// fetching the block tables of every column (16 KiB and more each)
	// fetched 1,166,005 bytes; the units sharing the tables but still
	// fetching those of the columns they do not read, 821,941.
	if served < head+colA || served > head+colA+32<<10 {
		t.Errorf("sum(a) read %d bytes of %d: want the header's %d, column a's %d and at most 32 KiB more", served, size, head, colA)
	}

	srv2 := newCountingServer(t, dir, 0)
	url = srv2.URL + "/big.trv"
	rs = runDuckDB(t, step{SQLs: []string{load(t), fmt.Sprintf("SELECT a, b, c, d FROM read_trevni(%s) LIMIT 10", quote(url))}})
	must(t, rs[0])
	if n := len(must(t, rs[1]).Rows); n != 10 {
		t.Errorf("LIMIT 10 gave %d rows", n)
	}
	reqs, served = srv2.counts("/big.trv")
	t.Logf("LIMIT 10: %d requests, %d bytes of the file's %d", reqs, served, size)
	if served > size/10 {
		t.Errorf("LIMIT 10 read %d bytes of %d: want few blocks", served, size)
	}
}

// TestInterruptStopsScan interrupts a query whose scan reads a slow HTTP
// server and checks that DuckDB reports the interruption and that the
// scan asks for nothing more afterwards (the next statement, which asks
// the server for a marker, then keeps the process busy).
func TestInterruptStopsScan(t *testing.T) {
	dir := t.TempDir()
	bigFile(t, dir, 200000)
	srv := newCountingServer(t, dir, 150*time.Millisecond)
	url := srv.URL + "/big.trv"
	rs := runDuckDB(t,
		step{SQLs: []string{load(t)}},
		step{SQLs: []string{fmt.Sprintf("SELECT sum(a), sum(c), max(b), sum(d) FROM read_trevni(%s)", quote(url))}, InterruptMS: 1500},
		step{SQLs: []string{
			fmt.Sprintf("SELECT * FROM read_trevni(%s)", quote(srv.URL+"/marker.trv")),
			"SELECT sum(i * i) FROM range(200000000) t(i)",
		}},
	)
	must(t, rs[0])
	r := rs[1]
	if !strings.Contains(strings.ToLower(r.Error), "interrupt") {
		t.Fatalf("the interrupted query: %v rows, error %q after %d ms, want DuckDB's interruption", r.Rows, r.Error, r.MS)
	}
	srv.mu.Lock()
	marker := srv.times["/marker.trv"]
	big := srv.times["/big.trv"]
	srv.mu.Unlock()
	if len(marker) == 0 {
		t.Fatal("the marker was not asked for")
	}
	late := 0
	for _, at := range big {
		if at.After(marker[0]) {
			late++
		}
	}
	t.Logf("interrupted after %d ms: %d requests of the file, %d after the next statement began; the busy statement took %v", r.MS, len(big), late, rs[3])
	if late > 0 {
		t.Errorf("%d requests of the file came after the interrupted query had returned", late)
	}
}
