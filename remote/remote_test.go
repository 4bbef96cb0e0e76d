package remote_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/rangeserver"
	"github.com/trevni-go/trevni/remote"
	"github.com/trevni-go/trevni/remote/httpread"
)

// serve serves data over loopback (internal/testing/rangeserver); failAfter > 0
// makes the range requests after that many cut their body short.
func serve(t *testing.T, data []byte, failAfter int64, noHead bool) *rangeserver.Server {
	return rangeserver.Bytes(t, data, &rangeserver.Options{FailAfter: failAfter, NoHead: noHead})
}

// million writes a file of n rows of four columns, values from a seeded
// generator, and returns it with the expected sums of columns 0 and 2.
func million(t testing.TB, n int) (file []byte, sum0 int64, len2 int64) {
	cols := []format.ColumnMeta{
		{Name: "id", Type: format.Long},
		{Name: "score", Type: format.Double},
		{Name: "name", Type: format.String},
		{Name: "n", Type: format.Int},
	}
	var buf bytes.Buffer
	w, err := format.NewWriter(&buf, cols, &format.WriterOptions{Codec: "null"})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		id := rng.Int64N(1 << 40)
		name := strconv.FormatUint(rng.Uint64(), 36)
		sum0 += id
		len2 += int64(len(name))
		if err := w.WriteRow(id, rng.Float64(), name, int32(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), sum0, len2
}

// readTwo reads columns 0 and 2 of rd in full.
func readTwo(rd *format.Reader) (sum0, len2 int64, err error) {
	a, err := rd.Values(0)
	if err != nil {
		return 0, 0, err
	}
	defer a.Close()
	b, err := rd.Values(2)
	if err != nil {
		return 0, 0, err
	}
	defer b.Close()
	for {
		if err := a.StartRow(); err == io.EOF {
			return sum0, len2, nil
		} else if err != nil {
			return 0, 0, err
		}
		if err := b.StartRow(); err != nil {
			return 0, 0, err
		}
		v, err := a.ReadLong()
		if err != nil {
			return 0, 0, err
		}
		s, err := b.ReadBytes()
		if err != nil {
			return 0, 0, err
		}
		sum0 += v
		len2 += int64(len(s))
	}
}

func TestProjectionRequests(t *testing.T) {
	rows := 1_000_000
	if testing.Short() {
		rows = 100_000
	}
	data, wantSum, wantLen := million(t, rows)
	s := serve(t, data, 0, false)
	ctx := context.Background()

	// Without coalescing: one request per block.
	h, err := httpread.Open(ctx, s.URL, &httpread.Options{Client: s.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if h.Size() != int64(len(data)) {
		t.Fatalf("size %d, want %d", h.Size(), len(data))
	}
	rd, err := format.NewReader(h, h.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, l, err := readTwo(rd)
	if err != nil || sum != wantSum || l != wantLen {
		t.Fatalf("plain read: %d %d %v, want %d %d", sum, l, err, wantSum, wantLen)
	}
	b0, _ := rd.Blocks(0)
	b2, _ := rd.Blocks(2)
	before := h.Requests()
	if before < int64(len(b0)+len(b2)) {
		t.Fatalf("plain read made %d requests for %d blocks", before, len(b0)+len(b2))
	}

	// With coalescing: the HEAD, the header and a few per column.
	h, err = httpread.Open(ctx, s.URL, &httpread.Options{Client: s.Client()})
	if err != nil {
		t.Fatal(err)
	}
	c := remote.NewCoalescer(h, h.Size(), nil)
	rd, err = format.NewReader(c, h.Size(), &format.ReaderOptions{Prefetch: c.Prefetch, ReadAhead: true})
	if err != nil {
		t.Fatal(err)
	}
	sum, l, err = readTwo(rd)
	if err != nil || sum != wantSum || l != wantLen {
		t.Fatalf("coalesced read: %d %d %v, want %d %d", sum, l, err, wantSum, wantLen)
	}
	after := h.Requests()
	// Each column gets half the budget per window.
	_, n0 := rd.ColumnRange(0)
	_, n2 := rd.ColumnRange(2)
	limit := 2 + (n0+n2)/(remote.DefaultBudget/2) + 2
	t.Logf("%d rows, file %d bytes, %d+%d blocks: %d requests plain, %d coalesced (fetched %d bytes of %d)",
		rows, len(data), len(b0), len(b2), before, after, h.BytesFetched(), n0+n2)
	if after > limit {
		t.Fatalf("coalesced read made %d requests, want at most %d", after, limit)
	}
	// Only the header and the two columns were fetched.
	if h.BytesFetched() > n0+n2+64<<10 {
		t.Fatalf("fetched %d bytes for columns of %d", h.BytesFetched(), n0+n2)
	}
}

func TestNoHeadUsesContentRange(t *testing.T) {
	data, wantSum, wantLen := million(t, 5000)
	s := serve(t, data, 0, true)
	h, err := httpread.Open(context.Background(), s.URL, &httpread.Options{Client: s.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if h.Size() != int64(len(data)) {
		t.Fatalf("size %d, want %d", h.Size(), len(data))
	}
	c := remote.NewCoalescer(h, h.Size(), &remote.CoalescerOptions{Budget: 64 << 10, Window: 4 << 10})
	rd, err := format.NewReader(c, h.Size(), &format.ReaderOptions{Prefetch: c.Prefetch})
	if err != nil {
		t.Fatal(err)
	}
	sum, l, err := readTwo(rd)
	if err != nil || sum != wantSum || l != wantLen {
		t.Fatalf("read: %d %d %v, want %d %d", sum, l, err, wantSum, wantLen)
	}
}

func TestServerFailsMidRead(t *testing.T) {
	data, _, _ := million(t, 50_000)
	s := serve(t, data, 4, false)
	h, err := httpread.Open(context.Background(), s.URL, &httpread.Options{Client: s.Client()})
	if err != nil {
		t.Fatal(err)
	}
	c := remote.NewCoalescer(h, h.Size(), &remote.CoalescerOptions{Budget: 64 << 10})
	rd, err := format.NewReader(c, h.Size(), &format.ReaderOptions{Prefetch: c.Prefetch})
	if err == nil {
		_, _, err = readTwo(rd)
	}
	if !errors.Is(err, remote.ErrRemote) || errors.Is(err, format.ErrFormat) || !strings.Contains(err.Error(), s.URL) || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Fatalf("error %v, want a remote error naming the URL", err)
	}
}

func TestMissingAndNoRanges(t *testing.T) {
	nf := httptest.NewServer(http.NotFoundHandler())
	defer nf.Close()
	if _, err := httpread.Open(context.Background(), nf.URL, &httpread.Options{Client: nf.Client()}); !errors.Is(err, remote.ErrRemote) || !strings.Contains(err.Error(), "404") {
		t.Fatalf("404: %v", err)
	}
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "no ranges here")
	}))
	defer plain.Close()
	if _, err := httpread.Open(context.Background(), plain.URL, &httpread.Options{Client: plain.Client()}); !errors.Is(err, remote.ErrRemote) || !errors.Is(err, remote.ErrNoRanges) {
		t.Fatalf("no ranges: %v", err)
	}
	// Such a resource is downloaded whole, within the limit.
	var b strings.Builder
	n, err := httpread.Download(context.Background(), plain.URL, &b, 14, nil)
	if err != nil || n != 14 || b.String() != "no ranges here" {
		t.Fatalf("download: %d bytes %q, %v", n, b.String(), err)
	}
	if _, err := httpread.Download(context.Background(), plain.URL, io.Discard, 13, nil); !errors.Is(err, remote.ErrTooLarge) {
		t.Fatalf("download over the limit: %v", err)
	}
}

// TestCoalescerFirstWindow: a read somewhere new fetches FirstWindow,
// reads going on in order from a window fetch Window.
func TestCoalescerFirstWindow(t *testing.T) {
	src := &countingSource{data: make([]byte, 10000)}
	c := remote.NewCoalescer(src, int64(len(src.data)), &remote.CoalescerOptions{Window: 64, FirstWindow: 16})
	var one [1]byte
	for _, step := range []struct{ off, bytes int64 }{
		{1000, 16}, // new: the first window
		{1015, 16}, // held
		{1016, 80}, // where the window ends: a full one
		{5000, 96}, // new again
	} {
		if _, err := c.ReadAt(one[:], step.off); err != nil {
			t.Fatal(err)
		}
		if src.bytes != step.bytes {
			t.Fatalf("after a read at %d: %d bytes fetched, want %d", step.off, src.bytes, step.bytes)
		}
	}
}

// TestCoalescerMatchesSource checks random reads through a Coalescer
// against the bytes themselves, with hints and a small budget.
func TestCoalescerMatchesSource(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 300_000)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	var reads atomic.Int64
	src := readerAtFunc(func(p []byte, off int64) (int, error) {
		reads.Add(1)
		return bytes.NewReader(data).ReadAt(p, off)
	})
	c := remote.NewCoalescer(src, int64(len(data)), &remote.CoalescerOptions{Budget: 40_000, Window: 5000})
	c.Prefetch(1000, 100_000)
	c.Prefetch(150_000, 100_000)
	for i := 0; i < 5000; i++ {
		off := rng.Int64N(int64(len(data)) + 10)
		p := make([]byte, rng.IntN(30_000))
		n, err := c.ReadAt(p, off)
		want := max(0, min(int64(len(p)), int64(len(data))-off))
		if int64(n) != want || !bytes.Equal(p[:n], data[off:off+int64(n)]) {
			t.Fatalf("ReadAt(%d, %d) = %d, %v", len(p), off, n, err)
		}
		if (int64(len(p)) > want) != (err == io.EOF) {
			t.Fatalf("ReadAt(%d, %d) error %v", len(p), off, err)
		}
	}
	// Sequential small reads within a hinted range coalesce.
	reads.Store(0)
	c = remote.NewCoalescer(src, int64(len(data)), nil)
	c.Prefetch(1000, 100_000)
	p := make([]byte, 1000)
	for off := int64(1000); off < 101_000; off += 1000 {
		if _, err := c.ReadAt(p, off); err != nil {
			t.Fatal(err)
		}
	}
	if reads.Load() != 1 {
		t.Fatalf("%d reads for one hinted range", reads.Load())
	}
}

type readerAtFunc func([]byte, int64) (int, error)

func (f readerAtFunc) ReadAt(p []byte, off int64) (int, error) { return f(p, off) }

// countingSource is an io.ReaderAt over data that counts reads and bytes.
type countingSource struct {
	data         []byte
	reads, bytes int64
}

func (c *countingSource) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	if off >= int64(len(c.data)) {
		return 0, io.EOF
	}
	n := copy(p, c.data[off:])
	c.bytes += int64(n)
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestHeaderReader: reads in order from the start are answered from a
// prefix that doubles, in few reads of the source and at most about twice
// the bytes read; other reads go straight through; every answer is the
// source's bytes.
func TestHeaderReader(t *testing.T) {
	data := make([]byte, 3<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	for _, header := range []int{100, 8 << 10, 20000, 1 << 20} {
		src := &countingSource{data: data}
		h := remote.NewHeaderReader(src, int64(len(data)))
		buf := make([]byte, 8<<10)
		for off := 0; off < header; off += len(buf) {
			n, err := h.ReadAt(buf, int64(off))
			if err != nil || n != len(buf) || !bytes.Equal(buf, data[off:off+len(buf)]) {
				t.Fatalf("header %d: read at %d: %d, %v", header, off, n, err)
			}
		}
		read := (header + len(buf) - 1) / len(buf) * len(buf)
		t.Logf("header of %d bytes: %d reads, %d bytes", header, src.reads, src.bytes)
		if src.bytes > int64(2*read) || src.reads > int64(2+bitsLen(read/(8<<10))) {
			t.Errorf("header of %d bytes: %d reads, %d bytes", header, src.reads, src.bytes)
		}
		// A read far away goes straight through, and does not grow the prefix.
		before := src.bytes
		p := make([]byte, 100)
		if n, err := h.ReadAt(p, 2<<20); err != nil || n != 100 || !bytes.Equal(p, data[2<<20:2<<20+100]) || src.bytes != before+100 {
			t.Fatalf("a read elsewhere: %d, %v, %d bytes", n, err, src.bytes-before)
		}
		// Within the prefix: no read of the source.
		reads := src.reads
		if n, err := h.ReadAt(p, 10); err != nil || n != 100 || !bytes.Equal(p, data[10:110]) || src.reads != reads {
			t.Fatalf("a read in the prefix: %d, %v", n, err)
		}
	}
	// The end of the source: a short read says io.EOF.
	small := &countingSource{data: data[:5000]}
	h := remote.NewHeaderReader(small, 5000)
	p := make([]byte, 8<<10)
	if n, err := h.ReadAt(p, 0); n != 5000 || err != io.EOF || !bytes.Equal(p[:n], data[:5000]) {
		t.Fatalf("past the end: %d, %v", n, err)
	}
	if n, err := h.ReadAt(p, 5000); n != 0 || err != io.EOF {
		t.Fatalf("at the end: %d, %v", n, err)
	}
	// A source that fails: the error, not bytes.
	trunc := remote.NewHeaderReader(&countingSource{data: data[:100]}, 5000)
	if _, err := trunc.ReadAt(p[:200], 0); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a short source: %v", err)
	}
}

func bitsLen(n int) int {
	k := 0
	for ; n > 0; n >>= 1 {
		k++
	}
	return k
}

// TestCoalescerFetchesEachByteOnce: with a budget that evicts nothing,
// random reads (straddling windows, starting inside one and running past
// it, hinted or not) fetch no byte twice, and none of the bytes given by
// Hold; what they return is the source's.
func TestCoalescerFetchesEachByteOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := make([]byte, 200_000)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	fetched := make([]int, len(data))
	src := readerAtFunc(func(p []byte, off int64) (int, error) {
		n, err := bytes.NewReader(data).ReadAt(p, off)
		for i := range n {
			fetched[off+int64(i)]++
		}
		return n, err
	})
	c := remote.NewCoalescer(src, int64(len(data)), &remote.CoalescerOptions{Budget: 1 << 20, Window: 3000, FirstWindow: 700})
	const held = 5000
	c.Hold(data[:held])
	c.Prefetch(20_000, 50_000)
	c.Prefetch(120_000, 30_000)
	for range 3000 {
		off := rng.Int64N(int64(len(data)))
		p := make([]byte, rng.IntN(9000))
		n, err := c.ReadAt(p, off)
		want := min(int64(len(p)), int64(len(data))-off)
		if int64(n) != want || !bytes.Equal(p[:n], data[off:off+int64(n)]) || (err != nil) != (int64(len(p)) > want) {
			t.Fatalf("ReadAt(%d, %d) = %d, %v", len(p), off, n, err)
		}
	}
	for i, k := range fetched {
		if k > 1 || (i < held && k > 0) {
			t.Fatalf("byte %d fetched %d times", i, k)
		}
	}
}

// TestCoalescerFetchedEnd: FetchedEnd says where what was fetched in a
// range ends, windows evicted since included, as a byte-by-byte record
// of the source's reads has it, over random reads with a budget small
// enough to evict.
func TestCoalescerFetchedEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	data := make([]byte, 100_000)
	fetched := make([]bool, len(data))
	src := readerAtFunc(func(p []byte, off int64) (int, error) {
		n, err := bytes.NewReader(data).ReadAt(p, off)
		for i := range n {
			fetched[off+int64(i)] = true
		}
		return n, err
	})
	c := remote.NewCoalescer(src, int64(len(data)), &remote.CoalescerOptions{Budget: 12_000, Window: 2000})
	c.Prefetch(10_000, 30_000)
	c.Prefetch(60_000, 20_000)
	want := func(off, end int64) int64 {
		for i := end - 1; i >= off; i-- {
			if fetched[i] {
				return i + 1
			}
		}
		return off
	}
	if got := c.FetchedEnd(0, int64(len(data))); got != 0 {
		t.Fatalf("FetchedEnd before any read = %d", got)
	}
	for range 400 {
		off := rng.Int64N(int64(len(data)))
		p := make([]byte, rng.IntN(8000)) // some past half the budget: read straight through
		if _, err := c.ReadAt(p, off); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		for range 20 {
			a := rng.Int64N(int64(len(data)))
			b := a + rng.Int64N(int64(len(data))-a+1)
			if got, w := c.FetchedEnd(a, b), want(a, b); got != w {
				t.Fatalf("FetchedEnd(%d, %d) = %d, want %d", a, b, got, w)
			}
		}
	}
}

// TestCoalescerGrowsInOrder: with FirstWindow set and nothing hinted, a
// read going on in order from a window fetches four times that window,
// up to half the budget, so that a long object read in order comes in a
// few reads; two such reads side by side share the budget; a window
// never runs into bytes fetched before (the start of the second column,
// read first), so that no byte is fetched twice.
func TestCoalescerGrowsInOrder(t *testing.T) {
	data := make([]byte, 4<<20)
	fetched := make([]int, len(data))
	var sizes []int
	src := readerAtFunc(func(p []byte, off int64) (int, error) {
		sizes = append(sizes, len(p))
		for i := range p {
			fetched[off+int64(i)]++
		}
		return len(p), nil
	})
	c := remote.NewCoalescer(src, int64(len(data)), &remote.CoalescerOptions{Budget: 1 << 20, Window: 1 << 10, FirstWindow: 256})
	var one [100]byte
	half := int64(len(data) / 2)
	// The second half's start first, then both halves in order, side by
	// side, as two columns.
	if _, err := c.ReadAt(one[:], half); err != nil {
		t.Fatal(err)
	}
	for off := int64(0); off < half; off += int64(len(one)) {
		for _, col := range [][2]int64{{0, half}, {half + 100, int64(len(data))}} {
			start := col[0] + off
			n := min(int64(len(one)), col[1]-start)
			if n <= 0 {
				continue
			}
			if _, err := c.ReadAt(one[:n], start); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, k := range fetched {
		if k != 1 {
			t.Fatalf("byte %d fetched %d times", i, k)
		}
	}
	// 256, 1 KiB, 4 KiB, ..., 256 KiB (a quarter of the budget: two
	// columns read), then 256 KiB at a time: about 2 MiB / 256 KiB + 6
	// per column.
	if len(sizes) > 2*(8+6)+1 {
		t.Errorf("%d reads for 4 MiB: %v", len(sizes), sizes)
	}
	if slices.Max(sizes) > 1<<20/4 {
		t.Errorf("a window of %d bytes, more than a half share of the budget", slices.Max(sizes))
	}
	t.Logf("%d reads: %v", len(sizes), sizes)
}
