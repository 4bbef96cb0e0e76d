package trevni

import (
	"context"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/shred"
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
		Shredder:       func(w any) *shred.AvroWriter { return w.(*Writer).aw },
	})
}
