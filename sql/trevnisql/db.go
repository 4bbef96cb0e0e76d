package trevnisql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	bindings "github.com/duckdb/duckdb-go-bindings"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/sql/duckscan"
)

// Options configures Open. A nil *Options means the defaults.
type Options struct {
	// Tables are views to create: each reads the data set Source (what
	// trevni.Open opens) under the name Name.
	Tables []Table
	// Open configures the opening and reading of the data sets: the
	// reader's limits (Reader.BlockMemory, MaxRecordBytes), HTTP, the
	// temporary directory. nil means trevni's defaults.
	Open *trevni.OpenOptions
	// Threads bounds the threads one scan runs on; 0 lets DuckDB choose.
	Threads int
	// Arrow makes the scans read Arrow batches rather than write DuckDB's
	// vectors from the columns' levels (duckscan.Config.Arrow): slower;
	// tests set it to compare the two paths.
	Arrow bool
}

// Table is a data set given a name in SQL.
type Table struct {
	Name, Source string
}

// ParseTable reads a NAME=SOURCE argument.
func ParseTable(s string) (Table, error) {
	name, source, ok := strings.Cut(s, "=")
	if !ok || name == "" || source == "" {
		return Table{}, fmt.Errorf("table %q: want NAME=SOURCE", s)
	}
	return Table{Name: name, Source: source}, nil
}

// DB is a DuckDB database in which Trevni data sets are tables. Its
// methods are safe for concurrent use, as database/sql's are.
type DB struct {
	*sql.DB
	connector *duckdb.Connector
	// conv is a connection of the database's own, never running a query,
	// through which the table function is registered.
	conv bindings.Connection

	mu      sync.Mutex
	reports []trevni.PartReport
}

// Open opens an in-memory DuckDB database with the table function
// trevni_scan, the replacement scan of .trv, .trv1 and .clmn names, and
// the views of opts.Tables. Close it when done.
func Open(ctx context.Context, opts *Options) (*DB, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		return nil, fmt.Errorf("opening DuckDB: %w", err)
	}
	rawDB, err := rawDatabase(connector)
	if err != nil {
		connector.Close()
		return nil, err
	}
	d := &DB{connector: connector}
	if bindings.Connect(rawDB, &d.conv) == bindings.StateError {
		connector.Close()
		return nil, errors.New("opening DuckDB: cannot connect")
	}
	d.DB = sql.OpenDB(connector)
	if err := duckscan.SetAPI(linkedAPI()); err != nil {
		d.Close()
		return nil, err
	}
	if err := duckscan.Register(d.conv.Ptr, rawDB.Ptr, &duckscan.Config{Open: o.Open, Threads: o.Threads, Reports: d.addReports, Arrow: o.Arrow}); err != nil {
		d.Close()
		return nil, err
	}
	for _, t := range o.Tables {
		if err := d.AddTable(ctx, t); err != nil {
			d.Close()
			return nil, err
		}
	}
	return d, nil
}

// AddTable creates the view t.Name of the data set t.Source. The data set
// is opened once here, so that a missing source is an error now.
func (d *DB) AddTable(ctx context.Context, t Table) error {
	q := fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM trevni_scan(%s)", quoteIdent(t.Name), quoteString(t.Source))
	if _, err := d.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("table %s=%s: %w", t.Name, t.Source, err)
	}
	return nil
}

// Reports returns the reports of the parts read since the last call
// (what each read of a part cost: columns and blocks read and skipped,
// bytes), in the order the reads ended, and forgets them.
func (d *DB) Reports() []trevni.PartReport {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.reports
	d.reports = nil
	return r
}

// addReports records reports of parts read.
func (d *DB) addReports(r []trevni.PartReport) {
	d.mu.Lock()
	d.reports = append(d.reports, r...)
	d.mu.Unlock()
}

// Close closes the database.
func (d *DB) Close() error {
	var err error
	if d.conv.Ptr != nil {
		bindings.Disconnect(&d.conv)
	}
	if d.DB != nil {
		err = d.DB.Close() // closes the connector too
	}
	if d.DB == nil {
		err = errors.Join(err, d.connector.Close())
	}
	return err
}

// rawDatabase returns the DuckDB database handle of a duckdb-go
// connector, which registering a C table function and converting Arrow
// data through the C API need but duckdb-go does not export. It is read
// from the connector's field db, checked by name and type, so that a
// duckdb-go that changed it is an error here, not a crash.
func rawDatabase(c *duckdb.Connector) (bindings.Database, error) {
	f := reflect.ValueOf(c).Elem().FieldByName("db")
	if !f.IsValid() || f.Type() != reflect.TypeFor[bindings.Database]() {
		return bindings.Database{}, errors.New("trevnisql: this duckdb-go's Connector has no field db of type duckdb_database")
	}
	return *(*bindings.Database)(unsafe.Pointer(f.UnsafeAddr())), nil
}

// quoteIdent quotes a SQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// quoteString quotes a SQL string literal.
func quoteString(s string) string {
	return `'` + strings.ReplaceAll(s, `'`, `''`) + `'`
}

// FunctionName is the table function that reads a data set (which the
// scan's errors name): read_trevni, also called trevni_scan.
const FunctionName = duckscan.FunctionName
