package trevni

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/ocfsource"
	"github.com/trevni-go/trevni/remote"
	"github.com/trevni-go/trevni/remote/store"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/trevni1"
)

// Format is the file format of one part of a data set, told by the file's
// first four bytes.
type Format uint8

const (
	// Trevni2 is the Trevni format of the specification and of Java's
	// trevni-core (magic "Trv\x02"). It is the only format with every
	// feature: block statistics, filters that skip blocks, seeking.
	Trevni2 Format = iota + 1
	// Trevni1 is Impala's version 1 (magic "Trv\x01"), with definition
	// and repetition levels (package trevni1).
	Trevni1
	// CLMN is the flat column format of package clmn (magic "CLMN").
	CLMN
	// Avro is an Avro object container file (magic "Obj\x01"), read as the
	// columns a Trevni 2 file of its records would have: each group of
	// its blocks is shredded in memory as it is read (see Dataset).
	Avro
	// Parquet is an Apache Parquet file (magic "PAR1"), read through the
	// driver that importing package trevniparquet registers (the core
	// links no Parquet reader); without it, opening one fails with an
	// error naming the import.
	Parquet
)

// String returns the format's name as the command line prints it.
func (f Format) String() string {
	switch f {
	case Trevni2:
		return "trevni"
	case Trevni1:
		return "trevni1"
	case CLMN:
		return "clmn"
	case Avro:
		return "avro"
	case Parquet:
		return "parquet"
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// file names a file of the format with its article, as messages say it:
// "a Trevni 1 file", "an Avro file".
func (f Format) file() string {
	switch f {
	case Trevni2:
		return "a Trevni file"
	case Trevni1:
		return "a Trevni 1 file"
	case CLMN:
		return "a CLMN file"
	case Avro:
		return "an Avro file"
	case Parquet:
		return "a Parquet file"
	}
	return "a file of " + f.String()
}

// DetectFormat tells the format of a file from its first bytes (at least
// four), or returns an error wrapping ErrUnknownFormat.
func DetectFormat(magic []byte) (Format, error) {
	if len(magic) >= 4 {
		switch string(magic[:4]) {
		case "Trv\x02":
			return Trevni2, nil
		case trevni1.Magic:
			return Trevni1, nil
		case clmn.Magic:
			return CLMN, nil
		case ocfsource.Magic:
			return Avro, nil
		case parquetMagic:
			return Parquet, nil
		}
	}
	return 0, fmt.Errorf("%w: the file starts with %q", ErrUnknownFormat, magic[:min(len(magic), 4)])
}

// ErrUnknownFormat reports a file that is none of the formats Open reads.
var ErrUnknownFormat = errors.New("not a Trevni, Trevni 1, CLMN, Avro or Parquet file")

// parquetMagic starts (and ends) every Parquet file.
const parquetMagic = "PAR1"

// ErrNoParquet reports a Parquet file opened by a program that does not
// link the Parquet driver (package trevniparquet).
var ErrNoParquet = errors.New(`a Parquet file: reading Parquet needs the driver of package trevniparquet (import _ "github.com/trevni-go/trevni/trevniparquet"; the trevni command links it)`)

// HTTPClient reads http(s) URLs for the front door (package remote's
// interface, named here): remote/httpread.New makes one over net/http,
// with its timeouts.
type HTTPClient = remote.HTTPClient

// OpenOptions configures Open, OpenFiles and OpenReaderAt: the limits of
// what reading may take, checksums, and where remote parts come from (and
// OpenObject, which takes the last only).
// A nil *OpenOptions, like the zero value, means the defaults, which are
// the trevni command's.
type OpenOptions struct {
	// ReaderSchema, if set, is the Avro schema (JSON text) that records
	// are read as: a projection or an evolution of the files' schema.
	// Parts whose schemas differ form one data set only when each
	// resolves to it.
	ReaderSchema string
	// MaxColumns and MaxDepth bound the column layout of the schemas
	// read (its columns, and the nesting of complex types); 0 means the
	// defaults, 65,536 columns and 1,000 levels (the command's
	// --max-columns and --max-depth set them). A larger schema is refused
	// with an error wrapping ErrSchemaTooLarge, before anything is
	// allocated for it.
	MaxColumns, MaxDepth int
	// MaxBlockSize bounds the uncompressed bytes of one block read; 0
	// means 64 MiB. A larger block is an error wrapping ErrLimit,
	// reported before any of it is decompressed. A CLMN file's columns,
	// read as blocks of rows, are held to it too: as a block is
	// inflated, for one whose long strings take more than its rows'
	// share of the column (clmn.SourceOptions.MaxBlockSize).
	MaxBlockSize int
	// BlockMemory bounds the bytes that each reader of a part holds in
	// block buffers (stored and decompressed, read-ahead included); 0
	// means 512 MiB, negative no bound. A block that would take more is an
	// error wrapping ErrLimit.
	BlockMemory int64
	// MaxRecordBytes bounds the bytes of one record as assembled; 0 means
	// 64 MiB. A larger record is an error wrapping ErrLimit.
	MaxRecordBytes int64
	// SkipChecksums reads blocks without verifying their checksums (the
	// command's --skip-checksums), to read what a damaged file still
	// holds; its structure is checked all the same.
	SkipChecksums bool
	// StrictChecksums rejects the all-zero CRC-32 that Java writes for
	// every block of a null-codec file; by default it is tolerated.
	StrictChecksums bool
	// ReadAhead makes each column's reader of a local Trevni part fetch
	// and decompress its next block on another goroutine while the
	// current one is decoded: faster (the trevni command sets it), at the
	// cost of a goroutine, a core and a block buffer a column. Without
	// it a read runs on its own goroutine (see ReadOptions.Workers).
	// Records of a part over HTTP or a store are always read ahead: those
	// goroutines wait on its requests, overlapping their latency.
	ReadAhead bool
	// ImpalaBooleans reads Trevni 1 boolean blocks that Impala's size bug
	// left short as Impala did (see trevni1.ReaderOptions).
	ImpalaBooleans bool
	// HTTP reads http and https URLs; nil means the client that importing
	// package remote/httpread links, with its defaults. A program that
	// reads such URLs imports that package, or hands its own client here
	// (httpread.New: an *http.Client, the connect, header and idle
	// timeouts); without either, reading a URL fails with an error
	// wrapping remote.ErrNoHTTP that names the import. So a program that
	// reads only files and stores links no net/http.
	HTTP HTTPClient
	// Stores are the stores of URLs by scheme ("s3", "gs", "azblob",
	// or a scheme of the caller's), used before the drivers a program
	// links (see package remote/store): a service hands in a store built
	// with its own bucket, client, credentials or http.Client (the New of
	// stores/s3, stores/gs, stores/azblob, or objstore.New over any
	// gocloud.dev bucket). nil: the linked drivers only, configured by
	// each store's standard environment.
	Stores map[string]Store
	// StoreRetries bounds the retries of a read from a store (s3://,
	// gs://, azblob://) that failed for a reason that may pass; 0 means 20,
	// negative none. The retries stop too once a read has failed for
	// StoreStall since its first failure, or when its context ends.
	StoreRetries int
	// StoreBackoff is the wait before a store read's first retry, doubled
	// before each next one up to 4 s; 0 means 100 ms.
	StoreBackoff time.Duration
	// StoreStall bounds the time each request to a store (reads,
	// listings of a glob or a prefix, the look at an object) may go
	// without progress before it fails (and is retried); 0 means 30 s,
	// negative no bound.
	StoreStall time.Duration
	// TempDir is where the downloads of URLs whose servers serve no byte
	// ranges go (see Dataset); "" means the system's temporary directory.
	TempDir string
	// MaxDownload bounds the bytes of a part downloaded whole because its
	// server does not serve byte ranges (see Dataset); 0 means
	// DefaultMaxDownload. A larger part is refused with an error wrapping
	// ErrTooLarge.
	MaxDownload int64
}

// Store is an object store that URLs of a scheme name (package
// remote/store's interface, named here): the New of each of stores/s3,
// stores/gs and stores/azblob makes one, and objstore.New makes one of any
// gocloud.dev bucket. A program hands stores to the front door by scheme
// (OpenOptions.Stores, WriteOptions.Stores), or links a driver by
// importing its package.
type Store = store.Store

// DefaultMaxDownload is the default of OpenOptions.MaxDownload: 1 GiB.
const DefaultMaxDownload = 1 << 30

// source is one file of a data set before it is opened: a path, a URL,
// or a ReaderAt given by the caller.
type source struct {
	name string
	ra   io.ReaderAt // set for OpenReaderAt
	size int64
}

// Open opens the data set name: a file, a shell-style glob (its matches
// in name order; directories among them are left out), a directory (its
// *.trv, *.trv1, *.clmn, *.avro and *.parquet files in name order), an
// http or https URL, or the URL of an object of a store (s3://bucket/key,
// gs://bucket/key, azblob://container/key), a glob over a store's keys
// (s3://bucket/logs/*.trv) or a prefix ending in "/" (its objects of those
// extensions one level down). The parts may be of any format Open reads
// (Trevni 2, Trevni 1, CLMN, Avro object container files, and Parquet
// where the program links package trevniparquet), told by their first
// bytes, and must have one schema (see OpenOptions.ReaderSchema). Open
// reads every part's header (of an Avro file, every block's header too,
// for its records) and leaves the parts closed; they are opened one at a
// time as they are read. ctx bounds the reads of the headers.
func Open(ctx context.Context, name string, opts *OpenOptions) (*Dataset, error) {
	return OpenFiles(ctx, []string{name}, opts)
}

// OpenFiles opens the data set of several names, each as Open takes it,
// read in the order given.
func OpenFiles(ctx context.Context, names []string, opts *OpenOptions) (*Dataset, error) {
	if len(names) == 0 {
		return nil, errors.New("trevni: no file to open")
	}
	paths, err := frontdoor.ExpandNames(ctx, names, opts.stores(), opts.storeOptions())
	if err != nil {
		return nil, err
	}
	srcs := make([]source, len(paths))
	for i, p := range paths {
		srcs[i] = source{name: p}
	}
	return openSources(ctx, srcs, opts)
}

// OpenReaderAt opens a data set of one part read from ra, of size bytes,
// named name in errors. It stays open until the data set is closed, which
// does not close ra.
func OpenReaderAt(ctx context.Context, ra io.ReaderAt, size int64, name string, opts *OpenOptions) (*Dataset, error) {
	return openSources(ctx, []source{{name: name, ra: ra, size: size}}, opts)
}

// isURL reports whether name is a URL read with range requests: http(s),
// or a store's among those opts hands in and the linked drivers.
func (o *OpenOptions) isURL(name string) bool { return frontdoor.IsURL(name, o.stores()) }

// isStoreURL reports whether name is the URL of an object of a store.
func (o *OpenOptions) isStoreURL(name string) bool { return store.IsURL(name, o.stores()) }

// stores returns the stores opts hands in, nil for none.
func (o *OpenOptions) stores() map[string]store.Store {
	if o == nil {
		return nil
	}
	return o.Stores
}

// storeOptions returns the options of store requests opts sets, nil for
// the defaults.
func (o *OpenOptions) storeOptions() *store.Options {
	if o == nil {
		return nil
	}
	return storeOptions(o.StoreRetries, o.StoreBackoff, o.StoreStall)
}

// storeOptions returns the options of store requests, nil for the
// defaults.
func storeOptions(retries int, backoff, stall time.Duration) *store.Options {
	if retries == 0 && backoff == 0 && stall == 0 {
		return nil
	}
	return &store.Options{Retries: retries, Backoff: backoff, Stall: stall}
}

// layout returns the layout bounds opts sets, nil for the defaults.
func (o *OpenOptions) layout() *layout.Options {
	if o == nil || o.MaxColumns == 0 && o.MaxDepth == 0 {
		return nil
	}
	return &layout.Options{MaxColumns: o.MaxColumns, MaxDepth: o.MaxDepth}
}

// reader returns the options of the Trevni readers beneath that opts sets
// (a new value each call, whose Prefetch the caller may set).
func (o *OpenOptions) reader() format.ReaderOptions {
	if o == nil {
		return format.ReaderOptions{}
	}
	return format.ReaderOptions{
		MaxBlockSize: o.MaxBlockSize, BlockMemory: o.BlockMemory,
		StrictChecksums: o.StrictChecksums, SkipChecksums: o.SkipChecksums,
		ReadAhead: o.ReadAhead,
	}
}
