package main

import (
	"errors"
	"fmt"

	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// limits are the parsed limit flags; zero means the library's default.
type limits struct {
	maxColumns, maxDepth  int
	maxBlock, blockMemory int64
}

// parse checks the limit flags.
func (l *limitFlags) parse() (limits, error) {
	out := limits{maxColumns: l.maxColumns, maxDepth: l.maxDepth}
	if l.maxColumns < 0 || l.maxDepth < 0 {
		return out, &usageError{msg: "--max-columns and --max-depth must not be negative"}
	}
	for _, f := range []struct {
		name, text string
		dst        *int64
	}{{"--max-block-size", l.maxBlock, &out.maxBlock}, {"--block-memory", l.blockMemory, &out.blockMemory}} {
		if f.text == "" {
			continue
		}
		n, err := parseSize(f.text)
		if err != nil || n <= 0 {
			return out, &usageError{msg: fmt.Sprintf("%s %q: want a size such as 64MiB", f.name, f.text)}
		}
		*f.dst = n
	}
	if out.maxBlock > 1<<31-1 {
		return out, &usageError{msg: "--max-block-size: Trevni blocks cannot exceed 2GiB-1"}
	}
	return out, nil
}

// layout returns the layout bounds the flags set, or nil for the defaults.
func (l limits) layout() *layout.Options {
	if l.maxColumns == 0 && l.maxDepth == 0 {
		return nil
	}
	return &layout.Options{MaxColumns: l.maxColumns, MaxDepth: l.maxDepth}
}

// reader applies the flags to a Trevni reader's options.
func (l limits) reader(o *format.ReaderOptions) *format.ReaderOptions {
	if o == nil {
		o = &format.ReaderOptions{}
	}
	if l.maxBlock > 0 {
		o.MaxBlockSize = int(l.maxBlock)
	}
	if l.blockMemory > 0 {
		o.BlockMemory = l.blockMemory
	}
	return o
}

// limitHint adds to an error caused by a limit the flags that raise it.
func limitHint(err error) error {
	switch {
	case errors.Is(err, schema.ErrTooLarge):
		return fmt.Errorf("%w (--max-columns and --max-depth raise the limits)", err)
	case errors.Is(err, clmn.ErrLimit):
		return fmt.Errorf("%w (--max-columns and --block-memory raise the limits)", err)
	case errors.Is(err, format.ErrLimit):
		return fmt.Errorf("%w (--max-block-size and --block-memory raise the limits)", err)
	}
	return err
}
