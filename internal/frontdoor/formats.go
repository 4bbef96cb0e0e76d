package frontdoor

import (
	"context"
	"io"
	"sync"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema/layout"
)

// The front door reads the formats of the core (Trevni 2, Trevni 1, CLMN,
// Avro container files) itself. A format whose reader links heavy
// dependencies (Parquet, through arrow-go) is a driver instead, as the
// object stores are: its package registers an opener here in its init,
// and a program reads the format by importing that package (the trevni
// command imports them all). The registry is this internal package's own:
// registering touches no state another library sees.

// FormatOptions is what the front door hands a format's opener of its
// OpenOptions.
type FormatOptions struct {
	// Layout bounds the column layout of the records' schema; nil means
	// layout's defaults.
	Layout *layout.Options
	// Reader holds the limits of the readers (MaxBlockSize, BlockMemory);
	// nil means format's defaults.
	Reader *format.ReaderOptions
}

// FormatSource is a file of a registered format opened for reading: its
// records as the columns a Trevni 2 file of them would have.
type FormatSource interface {
	format.Source
	// Close releases what the source holds (not the ReaderAt it reads).
	Close() error
}

// FormatDriver reads the files of one format.
type FormatDriver struct {
	// Name is the format's name, as messages give it ("Parquet").
	Name string
	// Magic is the first bytes of every file of the format.
	Magic string
	// Open opens the file of size bytes that ra reads. Its metadata
	// holds the records' Avro schema (avro.schema). ctx bounds the reads
	// of its header.
	Open func(ctx context.Context, ra io.ReaderAt, size int64, o *FormatOptions) (FormatSource, error)
	// Meta, if not nil, returns the file's own metadata as JSON, for the
	// command's meta.
	Meta func(src FormatSource) ([]byte, error)
}

var (
	formatsMu sync.RWMutex
	formats   = map[string]*FormatDriver{}
)

// RegisterFormat registers a format's driver, by its magic. It panics when
// the magic is registered twice (two packages claiming one format: a
// program's mistake, found at its start, as database/sql does).
func RegisterFormat(d *FormatDriver) {
	formatsMu.Lock()
	defer formatsMu.Unlock()
	if _, dup := formats[d.Magic]; dup {
		panic("trevni: format " + d.Name + " registered twice")
	}
	formats[d.Magic] = d
}

// FormatFor returns the driver of a file that starts with magic (four
// bytes), or nil.
func FormatFor(magic string) *FormatDriver {
	formatsMu.RLock()
	defer formatsMu.RUnlock()
	return formats[magic]
}
