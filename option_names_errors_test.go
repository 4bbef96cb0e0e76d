package trevni_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
)

// TestErrorsNameTheRootsOptions checks that an error of a limit, met
// through the front door, names the option a program of the root sets
// (OpenOptions.BlockMemory), not that of the package beneath that reads
// the part (format's, trevni1's, clmn's ReaderOptions), and still wraps
// ErrLimit (or ErrSchemaTooLarge) for errors.Is, with a *FileError where
// the part is a Trevni file, for every format of part.
func TestErrorsNameTheRootsOptions(t *testing.T) {
	cases := []struct {
		file, option string
		opts         trevni.OpenOptions
	}{
		{"testdata/interop/medium/medium.deflate.crc32.trv", "OpenOptions.BlockMemory", trevni.OpenOptions{BlockMemory: 1000}},
		{"testdata/interop/medium/medium.deflate.crc32.trv", "OpenOptions.MaxBlockSize", trevni.OpenOptions{MaxBlockSize: 1000}},
		{"testdata/trevni1/impala_several_blocks.trv", "OpenOptions.MaxBlockSize", trevni.OpenOptions{MaxBlockSize: 10}},
		{"testdata/trevni1/impala_several_blocks.trv", "OpenOptions.BlockMemory", trevni.OpenOptions{BlockMemory: 10}},
		{"testdata/clmn/sample.clmn", "OpenOptions.BlockMemory", trevni.OpenOptions{BlockMemory: 10}},
		{"testdata/interop/medium/input.avro", "OpenOptions.BlockMemory", trevni.OpenOptions{BlockMemory: 1000}},
		{"testdata/interop/medium/input.avro", "OpenOptions.MaxBlockSize", trevni.OpenOptions{MaxBlockSize: 1000}},
	}
	ctx := context.Background()
	for _, c := range cases {
		label := c.file + " " + c.option
		err := readAllErr(ctx, c.file, &c.opts)
		if err == nil {
			t.Errorf("%s: read whole within the limit", label)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.option) || strings.Contains(msg, "ReaderOptions") || strings.Contains(msg, "--") {
			t.Errorf("%s: the error names another option: %v", label, err)
		}
		if !strings.HasPrefix(msg, c.file+": ") {
			t.Errorf("%s: the error does not start with the part: %v", label, err)
		}
		if !errors.Is(err, trevni.ErrLimit) {
			t.Errorf("%s: not ErrLimit: %v", label, err)
		}
		var fe *trevni.FileError
		if strings.HasSuffix(c.file, ".trv") && !errors.As(err, &fe) {
			t.Errorf("%s: no FileError in %v", label, err)
		}
	}
}

// readAllErr reads every record of the data set name, and returns the
// first error.
func readAllErr(ctx context.Context, name string, opts *trevni.OpenOptions) error {
	ds, err := trevni.Open(ctx, name, opts)
	return firstReadErr(ctx, ds, err)
}
