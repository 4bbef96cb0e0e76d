package trevni

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/csvtable"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/internal/ocfsource"
	"github.com/trevni-go/trevni/internal/protoset"
	"github.com/trevni-go/trevni/remote"
	"github.com/trevni-go/trevni/remote/store"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/trevni1"
)

// Dataset is a data set opened by Open: one or more parts, of one schema,
// read one after the other as one sequence of records. Its methods read
// the parts' headers only; readers open each part as they reach it.
//
// Records are read the same way from every format, in place. A Trevni 1 or
// CLMN part's columns are read as Trevni 2 lays them out (a format.Source:
// Trevni 1's levels turned into array lengths, CLMN's columns cut into
// blocks, as each block is read), so that filters, field selection, reader
// schemas, structs and seeking work on those formats as on Trevni 2, with
// no copy and no temporary file. What is particular to a format (Trevni 1 levels,
// CLMN column types, Trevni 2 block statistics) is read with the format's
// own package (format, trevni1, clmn) over OpenObject.
//
// A part at an http or https URL, or an object of a store (s3://, gs://,
// azblob://; see package remote/store), is read with range requests,
// fetching what is read only. A server that does not serve byte ranges (it answers
// a range request with the whole file) has the part downloaded once, when
// the data set is opened, into a temporary file (OpenOptions.TempDir) of at
// most OpenOptions.MaxDownload bytes, removed by Close; Part.Downloaded tells
// such parts.
//
// A Dataset is safe for concurrent use by several readers (each Reader,
// iterator or writing method one goroutine's): it is opened once, and
// every read opens the parts it reads on its own. Close it after the
// last read.
type Dataset struct {
	opts      OpenOptions
	parts     []*Part
	schema    *schema.Schema // the records' schema: the reader schema, or the parts'
	text      string         // its JSON text
	schemaErr error          // why the parts' schema text does not parse
	ra        bool           // opened on a caller's ReaderAt: parts[0] stays open
	kept      atomic.Int64   // bytes of the parts' headers kept (Part.header)
	tableMem  atomic.Int64   // bytes of the parts' block tables kept (Part.tables)
}

// Part is one file of a data set.
type Part struct {
	ds     *Dataset
	src    source
	format Format
	rows   int64
	size   int64
	text   string // the Avro schema text of its records, "" when it has none
	cols   []format.ColumnMeta
	kept   *File // the part held open (OpenReaderAt)
	proto  bool  // written from protobuf: it has protobuf.descriptor_set

	// avro is an Avro part's block index, walked by its first open and
	// reused by the next ones (each with a cache of its own) while the
	// file's size is the same.
	amu  sync.Mutex
	avro *ocfsource.Source

	download     *os.File // the temporary copy of a URL whose server serves no ranges
	downloadSize int64
	version      string // of an object of a store, when the data set was opened

	// header is the first bytes of a remote part, its header at least,
	// fetched by its first open and reused by the next ones while the
	// file's version (headerVersion) and size are the same.
	hmu           sync.Mutex // guards header and headerVersion: opens may run side by side
	header        []byte
	headerVersion string
	// unreported is what the data set's open fetched of a remote part,
	// reported by the first read of its records (which uses the header
	// it fetched): the reports of a run add up to what was fetched.
	unreported atomic.Pointer[Fetched]
	// httpFile is an http(s) part's first open, which later ones reopen
	// (hint.go's openURL).
	httpFile remote.HTTPFile
	// tables is the block tables of a Trevni 2 part, shared by its opens
	// of version tablesVersion (hint.go's sharedTables).
	tables        *format.SharedTables
	tablesVersion string
}

// maxKeptHeader bounds the bytes of a remote part's header kept for its
// next opens, and maxKeptHeaders those of all the parts of a data set;
// a header past them is fetched again.
const (
	maxKeptHeader  = 4 << 20
	maxKeptHeaders = 64 << 20
)

// seed returns the header bytes kept of the part for a remote file of the
// version and size given, or nil.
func (p *Part) seed(version string, size int64) []byte {
	p.hmu.Lock()
	defer p.hmu.Unlock()
	if p.header == nil || version != p.headerVersion || size != p.size {
		return nil
	}
	return p.header
}

// Downloaded returns the bytes of the part downloaded whole into a
// temporary file, its server serving no byte ranges; 0 for a part read in
// place.
func (p *Part) Downloaded() int64 { return p.downloadSize }

// downloadURL downloads the part's URL into a temporary file, held until
// the data set is closed, within OpenOptions.MaxDownload.
func (p *Part) downloadURL(ctx context.Context) error {
	f, n, err := downloadTemp(ctx, p.Name(), &p.ds.opts)
	if err != nil {
		return err
	}
	p.download, p.downloadSize = f, n
	return nil
}

// release closes and removes the part's download, if it has one.
func (p *Part) release() error {
	if p.download == nil {
		return nil
	}
	err := removeTemp(p.download)
	p.download = nil
	return err
}

// Name returns the part's name as given or expanded: a path or a URL.
func (p *Part) Name() string { return p.src.name }

// Format returns the part's file format.
func (p *Part) Format() Format { return p.format }

// RowCount returns the part's number of rows (records).
func (p *Part) RowCount() int64 { return p.rows }

// Size returns the part's size in bytes.
func (p *Part) Size() int64 { return p.size }

// SchemaText returns the Avro schema of the part's records as JSON text:
// the avro.schema metadata of a Trevni 2 file ("" for a file not written
// from Avro), the schema a Trevni 1 file's records read as, or the record
// of a CLMN file's columns.
func (p *Part) SchemaText() string { return p.text }

// openSources opens the header of every source and checks that they form
// one data set.
func openSources(ctx context.Context, srcs []source, opts *OpenOptions) (*Dataset, error) {
	ds := &Dataset{}
	if opts != nil {
		ds.opts = *opts
	}
	ds.ra = len(srcs) == 1 && srcs[0].ra != nil
	for _, src := range srcs {
		p := &Part{ds: ds, src: src}
		mode := openHeaderOnly
		if ds.ra {
			mode = openFull
		}
		f, err := p.open(ctx, mode)
		if err != nil {
			p.release()
			ds.Close()
			return nil, err
		}
		p.format, p.rows, p.size = f.format, f.RowCount(), f.size
		if f.http != nil {
			opened := f.Fetched()
			p.unreported.Store(&opened)
		}
		p.text, err = f.schemaText()
		if err == nil && f.trevni != nil {
			p.proto = f.trevni.Meta().GetString(protoset.MetaDescriptorSet) != ""
			p.cols = make([]format.ColumnMeta, f.trevni.NumColumns())
			for i := range p.cols {
				c, cerr := f.trevni.Column(i)
				if cerr != nil {
					err = cerr
					break
				}
				p.cols[i] = *c
			}
		}
		if err == nil && len(ds.parts) > 0 {
			err = ds.agree(ds.parts[0], p, f)
		}
		if ds.ra && err == nil {
			p.kept = f
		} else {
			f.Close()
		}
		if err != nil {
			p.release()
			ds.Close()
			return nil, err
		}
		ds.parts = append(ds.parts, p)
	}
	ds.text = ds.opts.ReaderSchema
	if ds.text == "" {
		ds.text = ds.parts[0].text
	}
	if ds.text != "" {
		s, err := schema.Parse(ds.text)
		if err != nil {
			if ds.opts.ReaderSchema != "" {
				ds.Close()
				return nil, fmt.Errorf("reader schema: %w", err)
			}
			// The parts' own readers still read such a file (its
			// metadata, its structure): reading records reports this.
			ds.schemaErr = fmt.Errorf("%s: schema: %w", ds.parts[0].Name(), err)
		}
		ds.schema = s
	}
	return ds, nil
}

// agree checks that part b may be read with part a, whose file is f.
func (ds *Dataset) agree(a, b *Part, f *File) error {
	if a.text != "" || b.text != "" {
		if a.text == b.text {
			return nil
		}
		if ds.opts.ReaderSchema == "" {
			return fmt.Errorf("%s and %s have different schemas%s: give a reader schema both resolve to", a.Name(), b.Name(), schemaDifference(a.text, b.text))
		}
		if f.trevni == nil && f.format != Avro && f.format != Parquet {
			return fmt.Errorf("%s and %s have different schemas, and %s is %s: only Trevni, Avro and Parquet files are resolved to a reader schema", a.Name(), b.Name(), b.Name(), b.format.file())
		}
		rd, err := f.records(context.Background())
		if err != nil {
			return err
		}
		if _, err := assemble.NewAvroReader(rd, &assemble.Options{ReaderSchema: ds.opts.ReaderSchema, Layout: ds.opts.layout()}); err != nil {
			return fmt.Errorf("%s: does not resolve to the reader schema: %w", b.Name(), err)
		}
		return nil
	}
	if len(a.cols) != len(b.cols) {
		return fmt.Errorf("%s and %s have different columns (%d and %d)", a.Name(), b.Name(), len(a.cols), len(b.cols))
	}
	for i := range a.cols {
		x, y := &a.cols[i], &b.cols[i]
		if x.Name != y.Name || x.Type != y.Type || x.Parent != y.Parent || x.Array != y.Array {
			return fmt.Errorf("%s and %s have different columns: column %d is %q (%s) and %q (%s)", a.Name(), b.Name(), i, x.Name, x.Type, y.Name, y.Type)
		}
	}
	return nil
}

// Parts returns the data set's parts, in reading order.
func (ds *Dataset) Parts() []*Part { return ds.parts }

// Format returns the format of the first part.
func (ds *Dataset) Format() Format { return ds.parts[0].format }

// SchemaText returns the Avro schema records are read as, as JSON text:
// the reader schema as given, or the parts' own as stored in the files.
// It is "" for Trevni files not written from Avro, whose rows are read
// through package format (see OpenObject).
func (ds *Dataset) SchemaText() string { return ds.text }

// RowCount returns the number of rows of all parts.
func (ds *Dataset) RowCount() int64 {
	var n int64
	for _, p := range ds.parts {
		n += p.rows
	}
	return n
}

// Size returns the bytes of all parts.
func (ds *Dataset) Size() int64 {
	var n int64
	for _, p := range ds.parts {
		n += p.size
	}
	return n
}

// Column is one column of the records of a data set as a Trevni 2 file of
// their schema lays them out (a Trevni 2 file written from Avro has these
// columns).
type Column struct {
	// Name is the column's path: "a#b" for field b of record field a,
	// "a[]" for array a, "m>", "m>key" and "m>value" for map m, "u/T" for
	// branch T of union u.
	Name string
	// Type is the Trevni type of the column's values ("int", "long",
	// "string", "bytes" ...), "null" for a column that holds only lengths
	// for its children.
	Type string
	// Array marks a column that holds a length per row (or per parent
	// value) before its values.
	Array bool
	// Parent is the index of the column's parent column, or -1.
	Parent int
}

// Columns returns the columns of the records' schema, in file order, or an
// error for a data set without an Avro schema.
func (ds *Dataset) Columns() ([]Column, error) {
	cols, err := ds.layoutColumns()
	if err != nil {
		return nil, err
	}
	out := make([]Column, len(cols))
	for i, c := range cols {
		out[i] = Column{Name: c.Name, Type: c.Type.String(), Array: c.Array, Parent: c.Parent}
	}
	return out, nil
}

// layoutColumns returns the column layout of the records' schema (see
// frontdoor.LayoutColumns).
func (ds *Dataset) layoutColumns() ([]layout.Column, error) {
	if ds.schemaErr != nil {
		return nil, ds.schemaErr
	}
	if ds.schema == nil {
		return nil, fmt.Errorf("%s: %w", ds.parts[0].Name(), errNoSchema)
	}
	l, err := layout.New(ds.schema, ds.opts.layout())
	if err != nil {
		return nil, err
	}
	return l.Columns, nil
}

// errNoSchema reports a Trevni file not written from Avro read as records.
var errNoSchema = fmt.Errorf("the file has no %s metadata: it was not written from Avro", layout.MetaAvroSchema)

// Close closes the part a data set opened on a ReaderAt keeps open, and
// removes the downloads of parts whose servers serve no byte ranges. A
// data set opened by name holds nothing else open between reads. It
// returns the first error.
func (ds *Dataset) Close() error {
	var err error
	for _, p := range ds.parts {
		if rerr := p.release(); err == nil {
			err = rerr
		}
		if p.kept != nil {
			if cerr := p.kept.close(); err == nil {
				err = cerr
			}
			p.kept = nil
		}
	}
	return err
}

// File is one part opened for reading: the format's own reader, and the
// count of bytes read through it.
type File struct {
	part   *Part
	format Format
	size   int64
	ra     *countingReaderAt
	trevni *format.Reader
	v1     *trevni1.Reader
	clmn   *clmn.Reader
	avro   *ocfsource.Source       // an Avro container file's columns
	ext    frontdoor.FormatSource  // a file of a registered format (Parquet)
	driver *frontdoor.FormatDriver // its driver
	done   func() error

	coalescer *remote.Coalescer // of a URL read for records: told the blocks to fetch
	http      fetcher           // of a URL: counts the requests and bytes fetched
	earlier   Fetched           // fetched by the data set's open, reported with the file's

	columns *format.Reader // a Trevni 1 or CLMN part's columns as Trevni 2 lays them out (records)

	// shared: the readers are the part's held open (OpenReaderAt), shared
	// by every read of the data set, on any goroutine: their options are
	// not to be changed (format.Reader.SetReadAhead).
	shared bool
}

// Open opens the part for reading. The caller must Close it.
func (p *Part) Open(ctx context.Context) (*File, error) { return p.openFor(ctx, openFull) }

// openFor opens the part for reading as mode says, or hands out the part
// held open.
func (p *Part) openFor(ctx context.Context, mode int) (*File, error) {
	if p.kept != nil {
		k := p.kept
		f := &File{part: p, format: k.format, size: k.size, ra: k.ra, trevni: k.trevni, v1: k.v1, clmn: k.clmn, ext: k.ext, driver: k.driver, shared: true, done: func() error { return nil }}
		if k.avro != nil {
			f.avro = k.avro.Reopen(k.ra)
		}
		return f, nil
	}
	return p.open(ctx, mode)
}

// How a part is opened.
const (
	openFull       = iota // for any reading
	openHeaderOnly        // nothing past the header will be read: a URL is read no further
	openRecords           // for reading records: a remote part's Trevni blocks are read ahead
)

// open opens the part for reading as mode says.
func (p *Part) open(ctx context.Context, mode int) (*File, error) {
	name := p.src.name
	var (
		ra        io.ReaderAt
		size      int64
		done      = func() error { return nil }
		sw        *switchReader
		coalescer *remote.Coalescer
		fetcher   fetcher
		hr        *remote.HeaderReader // of a remote file
		version   string               // of a remote file
	)
	switch {
	case p.src.ra != nil:
		ra, size = p.src.ra, p.src.size
	case name == "-":
		return nil, errors.New("standard input: open it with OpenReaderAt")
	case p.download != nil:
		// Copied whole (OpenWhole), or a URL whose server serves no ranges.
		ra, size = p.download, p.downloadSize
	case p.ds.opts.isStoreURL(name):
		o, err := openStoreObject(ctx, name, &p.ds.opts)
		if err != nil {
			return nil, err
		}
		// Every open of the part reads the version the data set was
		// opened on: its row count and schema are that version's.
		if p.version == "" {
			p.version = o.Version()
		} else if v := o.Version(); v != p.version {
			o.Close()
			return nil, fmt.Errorf("%s: %w: since the data set was opened (version %s, now %s)", name, store.ErrChanged, p.version, v)
		}
		fetcher, size, done = countFetched(o), o.Size(), o.Close
		version = o.Version()
		ra, sw, coalescer, hr = remoteReader(o, size, mode, p.seed(version, size))
	case p.ds.opts.isURL(name):
		h, err := p.openURL(ctx, func() (remote.HTTPFile, error) { return openHTTP(ctx, name, &p.ds.opts) })
		if errors.Is(err, remote.ErrNoRanges) {
			if err := p.downloadURL(ctx); err != nil {
				return nil, err
			}
			ra, size = p.download, p.downloadSize
			break
		}
		if err != nil {
			return nil, err
		}
		fetcher, size = h, h.Size()
		version = h.Version()
		ra, sw, coalescer, hr = remoteReader(h, size, mode, p.seed(version, size))
	default:
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if fi.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s: is a directory", name)
		}
		if !fi.Mode().IsRegular() {
			f.Close()
			return nil, fmt.Errorf("%s: not a regular file: a data set's files are read at random", name)
		}
		ra, size, done = f, fi.Size(), f.Close
	}
	cra := &countingReaderAt{ctx: ctx, ra: ra}
	f := &File{part: p, size: size, ra: cra, done: done, coalescer: coalescer, http: fetcher}
	if fetcher != nil && mode == openRecords {
		if u := p.unreported.Swap(nil); u != nil {
			f.earlier = *u
		}
	}
	var magic [4]byte
	n, err := cra.ReadAt(magic[:], 0)
	if n < 4 {
		done()
		if err == nil || err == io.EOF {
			return nil, fmt.Errorf("%s: %w: %d bytes", name, ErrUnknownFormat, size)
		}
		return nil, partErr(name, err)
	}
	if f.format, err = DetectFormat(magic[:]); err != nil {
		done()
		return nil, partErr(name, err)
	}
	switch f.format {
	case Trevni2:
		ro := p.ds.opts.reader()
		// A remote part's records read ahead always: its goroutines wait
		// on requests, overlapping their latency; a local part's only as
		// the options ask, so that a read takes one core by default.
		ro.ReadAhead = ro.ReadAhead || mode == openRecords && fetcher != nil
		ro.Tables = p.sharedTables(version)
		f.trevni, err = format.NewReader(cra, size, &ro)
	case Trevni1:
		o := trevni1.ReaderOptions{ImpalaBooleans: p.ds.opts.ImpalaBooleans}
		o.MaxBlockSize, o.BlockMemory = int64(p.ds.opts.MaxBlockSize), p.ds.opts.BlockMemory
		o.SkipChecksums = p.ds.opts.SkipChecksums
		f.v1, err = trevni1.NewReader(cra, size, &o)
	case CLMN:
		o := clmn.ReaderOptions{MaxColumns: p.ds.opts.MaxColumns, ColumnMemory: p.ds.opts.BlockMemory, SkipChecksums: p.ds.opts.SkipChecksums}
		f.clmn, err = clmn.NewReader(cra, size, &o)
	case Avro:
		f.avro, err = p.openAvro(cra, size)
	case Parquet:
		f.driver = frontdoor.FormatFor(parquetMagic)
		if f.driver == nil {
			err = ErrNoParquet
			break
		}
		ro := p.ds.opts.reader()
		fo := &frontdoor.FormatOptions{Layout: p.ds.opts.layout(), Reader: &ro}
		if f.ext, err = f.driver.Open(ctx, cra, size, fo); err != nil {
			err = fmt.Errorf("a Parquet file: %w", err)
		}
	}
	if err != nil {
		done()
		return nil, partErr(name, err)
	}
	if hr != nil {
		// Kept for the part's next opens. A server that gives no ETag
		// pins nothing: its file may change between any two requests,
		// not only between two opens.
		b := hr.Prefix()
		p.hmu.Lock()
		if n := int64(len(b) - len(p.header)); int64(len(b)) <= maxKeptHeader && (p.size == 0 || p.size == size) {
			if p.ds.kept.Add(n) <= maxKeptHeaders {
				p.header, p.headerVersion = b, version
			} else {
				p.ds.kept.Add(-n)
			}
		}
		p.hmu.Unlock()
	}
	if sw != nil {
		// What was fetched of the header answers the reads past it.
		sw.rest.Hold(sw.header.Prefix())
		sw.pastHeader.Store(true)
		if f.clmn != nil && coalescer != nil {
			// A CLMN part's columns are each one stream, read from its
			// start: the part is hinted whole. A Trevni 1 part's blocks
			// are hinted by its reader, as a Trevni 2 part's are
			// (fetch.go's hint, through its Trevni 2 view), so that a
			// read of some of its rows fetches their blocks only.
			coalescer.Prefetch(0, size)
		}
	}
	return f, nil
}

// fetcher is a ReaderAt over a remote file (an HTTP URL, an object of a
// store) that counts what it fetched.
type fetcher interface {
	io.ReaderAt
	Requests() int64
	BytesFetched() int64
}

// countFetched returns o as a fetcher: itself when it counts its requests
// and bytes, else o with them counted here (one request a ReadAt).
func countFetched(o store.Object) fetcher {
	if f, ok := o.(fetcher); ok {
		return f
	}
	return &countedObject{Object: o}
}

// countedObject is a store's Object whose reads are counted.
type countedObject struct {
	store.Object
	reqs, bytes atomic.Int64
}

func (c *countedObject) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.Object.ReadAt(p, off)
	c.reqs.Add(1)
	c.bytes.Add(int64(n))
	return n, err
}

func (c *countedObject) Requests() int64     { return c.reqs.Load() }
func (c *countedObject) BytesFetched() int64 { return c.bytes.Load() }

// remoteReader returns the reader of a remote file of size bytes opened as
// mode says: its header through a remote.HeaderReader (which holds seed,
// the file's first bytes kept from an earlier open, when not nil), and for
// reads past it, when mode is openRecords, the Coalescer that the reader
// tells the blocks to fetch (fetch.go).
func remoteReader(h io.ReaderAt, size int64, mode int, seed []byte) (io.ReaderAt, *switchReader, *remote.Coalescer, *remote.HeaderReader) {
	hr := remote.NewHeaderReader(h, size)
	if seed != nil {
		hr = remote.NewHeaderReaderFrom(h, size, seed)
	}
	switch mode {
	case openHeaderOnly:
		return hr, nil, nil, hr
	case openRecords:
		// The header, then only what the reader hints (fetch.go).
		c := remote.NewCoalescer(h, size, &remote.CoalescerOptions{Window: rangeWindow})
		sw := &switchReader{header: hr, rest: c}
		return sw, sw, c, hr
	}
	// The header, then what is read in windows of fullWindow: a caller
	// reading a column's blocks in order fetches them a window at a
	// time; a read somewhere new (a block table) fetches rangeWindow, so
	// that one reading block tables fetches little more than the tables.
	c := remote.NewCoalescer(h, size, &remote.CoalescerOptions{Window: fullWindow, FirstWindow: rangeWindow})
	sw := &switchReader{header: hr, rest: c}
	return sw, sw, nil, hr
}

// Part returns the part the file is.
func (f *File) Part() *Part { return f.part }

// Format returns the file's format.
func (f *File) Format() Format { return f.format }

// RowCount returns the file's number of rows.
func (f *File) RowCount() int64 {
	switch {
	case f.trevni != nil:
		return f.trevni.RowCount()
	case f.v1 != nil:
		return f.v1.RowCount()
	case f.avro != nil:
		return f.avro.RowCount()
	case f.ext != nil:
		return f.ext.RowCount()
	}
	return f.clmn.RowCount()
}

// BytesRead returns the bytes read from the file so far.
func (f *File) BytesRead() int64 { return f.ra.n.Load() }

// Fetched returns what was read from storage so far: over HTTP the range
// requests and the bytes they fetched (prefetched windows included), for a
// local file or a ReaderAt the reads and their bytes. The first file
// opened to read a remote part's records counts too what the data set's
// open fetched of it (its header, which the file reads again from memory).
func (f *File) Fetched() Fetched {
	if f.http != nil {
		return Fetched{Requests: f.earlier.Requests + f.http.Requests(), Bytes: f.earlier.Bytes + f.http.BytesFetched()}
	}
	return Fetched{Requests: f.ra.reads.Load(), Bytes: f.ra.n.Load()}
}

// Close closes the file.
func (f *File) Close() error { return f.close() }

func (f *File) close() error {
	f.columns = nil
	if f.done == nil {
		return nil
	}
	var err error
	if f.ext != nil && !f.shared {
		err = f.ext.Close()
	}
	if derr := f.done(); err == nil {
		err = derr
	}
	f.done = nil
	return err
}

// schemaText returns the Avro schema of the file's records.
func (f *File) schemaText() (string, error) {
	switch {
	case f.trevni != nil:
		return f.trevni.Meta().GetString(layout.MetaAvroSchema), nil
	case f.v1 != nil:
		t, err := f.v1.AvroSchema()
		if err != nil {
			if _, stored := f.v1.Meta().Get(trevni1.KeyAvroSchema); !stored {
				// Columns no flat record reads, and no schema: a file
				// read through its own reader only, as a Trevni 2
				// file not written from Avro is.
				return "", nil
			}
			return "", partErr(f.part.Name(), err)
		}
		return t, nil
	case f.avro != nil:
		return f.avro.Schema(), nil
	case f.ext != nil:
		if m := f.ext.Meta(); m != nil {
			return m.GetString(layout.MetaAvroSchema), nil
		}
		return "", nil
	}
	return csvtable.AvroSchema("Row", csvtable.CLMNFields(f.clmn)), nil
}

// countingReaderAt counts the bytes read through it and fails once ctx
// is done, so that an interrupted run stops at its next read.
type countingReaderAt struct {
	ctx   context.Context
	ra    io.ReaderAt
	n     atomic.Int64 // bytes read
	reads atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.ra.ReadAt(p, off)
	c.n.Add(int64(n))
	c.reads.Add(1)
	return n, err
}

// schemaDifference returns ", at F: what" naming the first difference of
// two schema texts that differ, or "" when they mean the same or do not
// parse.
func schemaDifference(a, b string) string {
	sa, err := schema.Parse(a)
	if err != nil {
		return ""
	}
	sb, err := schema.Parse(b)
	if err != nil {
		return ""
	}
	if d := schema.Difference(sa, sb); d != "" {
		return " (" + d + ")"
	}
	return ""
}

// sameAvroSchema reports whether two Avro schema texts describe the same
// data (see schema.Difference: documentation, aliases and defaults aside):
// nil if they do, or an error naming where they first differ. It is the
// format.ConcatOptions.SameSchema that joins parts whose schemas are
// written otherwise.
func sameAvroSchema(first, part []byte) error {
	a, err := schema.Parse(string(first))
	if err != nil {
		return fmt.Errorf("the first part's schema: %w", err)
	}
	b, err := schema.Parse(string(part))
	if err != nil {
		return fmt.Errorf("its schema: %w", err)
	}
	if d := schema.Difference(a, b); d != "" {
		return fmt.Errorf("its schema differs from the first part's (the first part's, then its): %s", d)
	}
	return nil
}

// openAvro returns the Source of an Avro part read through ra (size
// bytes): the part's block index walked by an earlier open, with a cache
// of its own, or walked now and kept for the next opens.
func (p *Part) openAvro(ra io.ReaderAt, size int64) (*ocfsource.Source, error) {
	p.amu.Lock()
	defer p.amu.Unlock()
	if p.avro != nil && p.avro.Size() == size {
		return p.avro.Reopen(ra), nil
	}
	o := &ocfsource.Options{Layout: p.ds.opts.layout(), MaxBlockSize: int64(p.ds.opts.MaxBlockSize), Memory: p.ds.opts.BlockMemory}
	src, err := ocfsource.Open(ra, size, o)
	if errors.Is(err, ocf.ErrTooLarge) && !errors.Is(err, ErrLimit) {
		// The Avro reader's blocks and lengths are bounded by MaxBlockSize.
		return nil, fmt.Errorf("%w: %w (OpenOptions.MaxBlockSize)", ErrLimit, err)
	}
	if err != nil {
		return nil, err
	}
	p.avro = src
	return src.Reopen(ra), nil
}
