package frontdoor

import (
	"context"
	"io"
)

// ContextReader returns a reader of r that fails with ctx's error once ctx
// is done (checked before each Read), for the root's and the command's
// streams alike.
func ContextReader(ctx context.Context, r io.Reader) io.Reader {
	return &ctxReader{ctx: ctx, r: r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (r *ctxReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}
