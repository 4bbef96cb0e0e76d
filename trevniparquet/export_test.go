package trevniparquet

import (
	"bufio"
	"bytes"
	"context"
	"io"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/trevni-go/trevni"

	"github.com/trevni-go/trevni/trevniarrow"
)

// WriteArrow is Write through Arrow batches always, for the
// tests that compare the direct path with it.
func WriteArrow(ctx context.Context, w io.Writer, ds *trevni.Dataset, opts *WriteOptions) (int64, error) {
	return write(ctx, w, ds, opts, false)
}

// DirectApplies says whether Write writes ds (with opts) straight
// from its Trevni columns.
func DirectApplies(ds *trevni.Dataset, opts *WriteOptions) bool {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	o.Read.Schema.Parquet = true
	o.Read.Schema.ForeignTypes = true
	s := directSchema(ds, &o.Read)
	if s == nil {
		return false
	}
	as, err := trevniarrow.ArrowSchema(s, &o.Read.Schema)
	if err != nil {
		return false
	}
	codec, err := parquetCodec(o.Codec)
	if err != nil {
		return false
	}
	return planDirect(ds, &o.Read, as, parquetProps(codec, max(o.RowGroupRows, 1), nil)) != nil
}

// MislabelledV2Flags returns the file offsets of the is_compressed = false
// flags of the version 2 data pages of a Parquet file's compressed column
// chunks, when its writer is a parquet-cpp that mislabelled them (none
// else).
func MislabelledV2Flags(r parquet.ReaderAtSeeker) ([]int64, error) {
	rd, err := file.NewParquetReader(r)
	if err != nil {
		return nil, err
	}
	if !mislabelledV2(rd) {
		return nil, nil
	}
	return v2FlagOffsets(r, rd)
}

// SetSliceBytes sets the uncompressed bytes of the rows of a block of the
// Parquet source (see source.go) and returns the setting before, for the
// tests that cut row groups into many slices.
func SetSliceBytes(n int64) int64 {
	old := sliceBytes
	sliceBytes = n
	return old
}

// PageHeaderSize returns the size of the page header at data[off:] and
// the size of the page's bytes after it, for the tests that change a
// page's bytes.
func PageHeaderSize(data []byte, off int64) (int, int64, error) {
	src := bytes.NewReader(data[off:])
	br := bufio.NewReader(src)
	h, err := (&thriftReader{r: br}).readPageHeader()
	if err != nil {
		return 0, 0, err
	}
	return len(data[off:]) - br.Buffered() - src.Len(), h.compressed, nil
}
