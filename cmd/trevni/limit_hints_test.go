package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/format"
)

// TestLimitHintsNameTheFlags: each kind of limit error gets the flags that
// raise it; a CLMN block past the block size limit is one of CLMN's limits
// (clmn.ErrLimit) and --max-block-size raises it.
func TestLimitHintsNameTheFlags(t *testing.T) {
	for _, c := range []struct {
		err   error
		flags []string
	}{
		{fmt.Errorf("%w: a block of 9000000 bytes, past the 8388608 of OpenOptions.MaxBlockSize", clmn.ErrLimit), []string{"--max-block-size", "--max-columns", "--block-memory"}},
		{fmt.Errorf("%w: block past MaxBlockSize", format.ErrLimit), []string{"--max-block-size", "--block-memory"}},
		{fmt.Errorf("%w: record of 9 MiB", format.ErrRecordSize), []string{"--max-record-size"}},
	} {
		got := limitHint(c.err)
		if !errors.Is(got, c.err) {
			t.Errorf("limitHint(%v) = %v: no longer wraps the error", c.err, got)
		}
		for _, f := range c.flags {
			if !strings.Contains(got.Error(), f) {
				t.Errorf("limitHint(%v) = %q: does not name %s", c.err, got, f)
			}
		}
	}
}
