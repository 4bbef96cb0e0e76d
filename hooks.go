package trevni

import (
	"context"
	"fmt"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/trevni1"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
)

// The front door's plumbing for the command and the bridges lives in
// internal/frontdoor, below this package; what of it needs this
// package's unexported state is handed down here, once, as the package
// is initialized. It sets that internal package's own variables only: no
// state a program or another library sees.
func init() {
	frontdoor.Install(frontdoor.Hooks{
		ReadBatches: readBatchesAny,
		AsTrevni: func(ctx context.Context, f any) (*format.Reader, error) {
			return f.(*File).records(ctx)
		},
		CandidateRows: func(ctx context.Context, p any, where string) ([]frontdoor.RowRange, error) {
			return p.(*Part).candidateRows(ctx, where)
		},
		FilterFields: func(ds any, where string) []string {
			return ds.(*Dataset).filterFields(where)
		},
		ConcatDatasets: concatDatasets,
		ScanReport:     func(s assemble.ScanReport) any { return scanReport(s) },
		Schema: func(v any) *schema.Schema {
			switch v := v.(type) {
			case *Dataset:
				return v.schema
			case *Reader:
				return v.schema
			case *Writer:
				return v.aw.Schema()
			}
			panic(fmt.Sprintf("frontdoor.Schema of a %T", v))
		},
		LayoutColumns: func(ds any) ([]layout.Column, error) { return ds.(*Dataset).layoutColumns() },
		FileReaders: func(f any) (*format.Reader, *trevni1.Reader, *clmn.Reader) {
			ff := f.(*File)
			return ff.trevni, ff.v1, ff.clmn
		},
		FetchedEnd: func(r any, off, end int64) int64 {
			switch r := r.(type) {
			case *Reader:
				return r.fetchedEnd(off, end)
			case *ProtoReader:
				return r.r.fetchedEnd(off, end)
			}
			panic(fmt.Sprintf("frontdoor.FetchedEnd of a %T", r))
		},
		KeepMapOrder: func(wo any) { wo.(*WriteOptions).keepMapOrder = true },
	})
}
