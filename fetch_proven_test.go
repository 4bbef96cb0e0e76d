package trevni

import (
	"testing"
)

// Over HTTP a filter that the block statistics prove true on every row
// fetches no more than reading the fields without it, but the filter
// column's block table: the reader takes the proven rows without reading
// the filter's column, so its blocks are neither read nor hinted. A filter
// the statistics leave in doubt fetches its column's blocks (the test
// still tells the two apart). The records are those of the local read.
func TestFetchSkipsProvenFilterColumns(t *testing.T) {
	local, remote, srv, b := localAndServed(t)
	fetched := func(opts *ReadOptions) int64 {
		srv.Reset()
		got, _ := readAllFetched(t, remote, opts)
		quiet(&srv.Sent)
		if want := readAll(t, local, opts); !sameRecords(got, want) {
			t.Errorf("where %q: %d records over HTTP, %d from the file", opts.Where, len(got), len(want))
		}
		return srv.Sent.Load()
	}
	fields := []string{"small"}
	plain := fetched(&ReadOptions{Fields: fields})
	proven := fetched(&ReadOptions{Fields: fields, Where: "id >= -9223372036854775808"})
	doubtful := fetched(&ReadOptions{Fields: fields, Where: "id != 3"})
	t.Logf("bytes fetched: fields alone %d, a proven filter %d, a filter in doubt %d (file %d)", plain, proven, doubtful, len(b))
	const table = 64 << 10 // the filter column's block table, fetched in windows
	if proven > plain+table {
		t.Errorf("a filter proven on every row fetched %d bytes, the fields alone %d: more than the filter column's block table beside them", proven, plain)
	}
	if doubtful <= proven+table {
		t.Errorf("a filter in doubt fetched %d bytes, a proven one %d: the test no longer tells them apart", doubtful, proven)
	}
}
