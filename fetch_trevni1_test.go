package trevni

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/rangeserver"
	"github.com/trevni-go/trevni/trevni1"
	"github.com/trevni-go/trevni/trevni1/convert"
)

// Over HTTP a read of some rows of a Trevni 1 file fetches the blocks of
// those rows in the columns read, as for a Trevni 2 file, not the file
// from the first block read to its end (a whole-file hint made every
// window run on through the columns after it): the last eighth of the
// rows of the first field fetch less than a fifth of the file, and give
// the records the local file gives.
func TestFetchTrevni1OnlyWhatIsRead(t *testing.T) {
	b, err := fetchBytes()
	if err != nil {
		t.Fatal(err)
	}
	src, err := format.NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var v1 bytes.Buffer
	if _, err := convert.FromV2(context.Background(), &v1, src, &trevni1.WriterOptions{Codec: "snappy"}); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "large.trv1")
	if err := os.WriteFile(name, v1.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := rangeserver.Bytes(t, v1.Bytes(), nil)
	ctx := context.Background()
	local, err := Open(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	remote, err := Open(ctx, srv.URL+"/large.trv1", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	field := local.schema.Fields[0].Name
	opts := &ReadOptions{Fields: []string{field}, Offset: local.RowCount() * 7 / 8}
	want := readAll(t, local, opts)
	srv.Reset()
	got := readAll(t, remote, opts)
	size := int64(v1.Len())
	t.Logf("the last %d of %d rows of %s: %d requests, %d of %d bytes fetched", len(want), local.RowCount(), field, srv.Requests.Load(), srv.Sent.Load(), size)
	if !sameRecords(got, want) {
		t.Fatalf("%d records over HTTP, %d locally, or they differ", len(got), len(want))
	}
	if sent := srv.Sent.Load(); sent > size/5 {
		t.Errorf("%d of %d bytes fetched for an eighth of the rows of one field", sent, size)
	}
}
