package clmn

import (
	"io"

	"github.com/klauspost/compress/zlib"
)

func newZlib(w io.Writer) *zlib.Writer { return zlib.NewWriter(w) }
