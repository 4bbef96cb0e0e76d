package clmn

import (
	"encoding/binary"
	"io"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zlib"

	"github.com/trevni-go/trevni/internal/codec"
)

// inflater reads a zlib stream (RFC 1950) as klauspost's zlib reader does,
// with the same errors, but checks its Adler-32 with codec.AdlerUpdate,
// eight bytes at a time, rather than hash/adler32's byte at a time: a
// CLMN column's checksum took about a tenth of reading it.
type inflater struct {
	r       flate.Reader // the stream's bytes, read no further than its end
	fr      io.ReadCloser
	adler   uint32
	err     error
	skipSum bool // the Adler-32 is read but not computed nor compared
}

// newInflater returns an inflater of the zlib stream r.
func newInflater(r flate.Reader) (*inflater, error) {
	z := &inflater{}
	return z, z.Reset(r, nil)
}

// Reset starts reading the zlib stream r, reading its header; dict must be
// nil (a CLMN column has no preset dictionary).
func (z *inflater) Reset(r io.Reader, dict []byte) error {
	z.r, z.adler, z.err = r.(flate.Reader), 1, nil
	var h [2]byte
	if _, err := io.ReadFull(z.r, h[:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		z.err = err
		return err
	}
	cmf, flg := h[0], h[1]
	if cmf&0x0f != 8 || cmf>>4 > 7 || (uint16(cmf)<<8|uint16(flg))%31 != 0 {
		z.err = zlib.ErrHeader
		return z.err
	}
	if flg&0x20 != 0 || dict != nil {
		z.err = zlib.ErrDictionary
		return z.err
	}
	if z.fr == nil {
		z.fr = flate.NewReader(z.r)
	} else if err := z.fr.(flate.Resetter).Reset(z.r, nil); err != nil {
		z.err = err
		return err
	}
	return nil
}

// Read inflates into p; at the end of the stream it checks the Adler-32
// that follows and returns io.EOF, or zlib.ErrChecksum.
func (z *inflater) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	n, err := z.fr.Read(p)
	if !z.skipSum {
		z.adler = codec.AdlerUpdate(z.adler, p[:n])
	}
	if err != io.EOF {
		z.err = err
		return n, err
	}
	var t [4]byte
	if _, err := io.ReadFull(z.r, t[:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		z.err = err
		return n, err
	}
	if binary.BigEndian.Uint32(t[:]) != z.adler && !z.skipSum {
		z.err = zlib.ErrChecksum
		return n, z.err
	}
	z.err = io.EOF
	return n, io.EOF
}

// Close reports a stream that failed, as klauspost's zlib reader does.
func (z *inflater) Close() error {
	if z.err != nil && z.err != io.EOF {
		return z.err
	}
	z.err = z.fr.Close()
	return z.err
}
