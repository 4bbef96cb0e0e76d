package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/limitfile"
	"github.com/trevni-go/trevni/remote/httpread"
	"github.com/trevni-go/trevni/schema/layout"
)

// limits are the parsed limit flags; zero means the library's default.
type limits struct {
	maxColumns, maxDepth  int
	maxBlock, blockMemory int64
	maxRecord             int64         // 0 for the library's default
	maxDownload           int64         // 0 for the library's default
	httpTimeout           time.Duration // 0 for none
	skipChecksums         bool          // --skip-checksums
}

// parse checks the limit flags.
func (l *limitFlags) parse() (limits, error) {
	out := limits{maxColumns: l.maxColumns, maxDepth: l.maxDepth, httpTimeout: l.httpTimeout, skipChecksums: l.skipChecksums}
	if l.maxColumns < 0 || l.maxDepth < 0 {
		return out, &usageError{msg: "--max-columns and --max-depth must not be negative"}
	}
	if l.httpTimeout < 0 {
		return out, &usageError{msg: "--http-timeout must not be negative"}
	}
	for _, f := range []struct {
		name, text string
		dst        *int64
	}{{"--max-block-size", l.maxBlock, &out.maxBlock}, {"--block-memory", l.blockMemory, &out.blockMemory}, {"--max-record-size", l.maxRecord, &out.maxRecord}, {"--max-download", l.maxDownload, &out.maxDownload}} {
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

// httpOptions returns the HTTP options the flags set.
func (l limits) httpOptions() *httpread.Options {
	d := l.httpTimeout
	if d == 0 {
		d = -1 // none
	}
	return &httpread.Options{ConnectTimeout: d, HeaderTimeout: d, IdleTimeout: d}
}

// http returns the front door's client of http(s) URLs with the options
// the flags set.
func (l limits) http() trevni.HTTPClient { return httpread.New(l.httpOptions()) }

// stall returns the stall of store requests the flags set: --http-timeout
// bounds a read's wait for each byte of an object too (a stalled read is
// retried).
func (l limits) stall() time.Duration {
	if l.httpTimeout == 0 {
		return -1 // none
	}
	return l.httpTimeout
}

// store returns the object store options the flags set, for the front
// door's plumbing (the same as openOptions gives the front door).
func (l limits) store() *frontdoor.StoreOptions { return &frontdoor.StoreOptions{Stall: l.stall()} }

// limitHint adds to an error caused by a limit the flags that raise it.
func limitHint(err error) error {
	switch {
	case errors.Is(err, trevni.ErrSchemaTooLarge):
		return fmt.Errorf("%w (--max-columns and --max-depth raise the limits)", err)
	case errors.Is(err, clmn.ErrLimit):
		return fmt.Errorf("%w (--max-columns, --max-block-size and --block-memory raise the limits)", err)
	case errors.Is(err, limitfile.ErrTooLarge):
		return fmt.Errorf("%w (the limit on schema, descriptor set and .proto files: --schema, --descriptor-set, --proto and their imports)", err)
	case errors.Is(err, trevni.ErrTooLarge):
		return fmt.Errorf("%w (--max-download raises the limit)", err)
	case errors.Is(err, trevni.ErrTimeout): // a store's stall too
		return fmt.Errorf("%w (--http-timeout changes the limit)", err)
	case errors.Is(err, format.ErrRecordSize):
		return fmt.Errorf("%w (--max-record-size raises the limit)", err)
	case errors.Is(err, format.ErrLimit):
		return fmt.Errorf("%w (--max-block-size and --block-memory raise the limits)", err)
	}
	return err
}
