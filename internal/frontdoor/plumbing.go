package frontdoor

import (
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/trevni1"
)

// What the root keeps out of its API, since it is another package's type
// or serves one client only, handed to the command and the bridges here
// (the root installs each in Hooks).

// ScanReport returns an assembling reader's report as the root's
// trevni.ScanReport (the value of PartReport.Scan), for the bridges that
// read a part's columns themselves (trevniarrow, trevniparquet, DuckDB's
// scan): trevni.PartReport{Scan: frontdoor.ScanReport(s).(trevni.ScanReport)}.
func ScanReport(s assemble.ScanReport) any { return hooks.ScanReport(s) }

// Schema returns the parsed Avro schema of v: of a *trevni.Dataset, the
// schema its records are read as (nil when it has none, see
// Dataset.SchemaText); of a *trevni.Reader, the schema of the records it
// returns; of a *trevni.Writer, the schema of the records it writes.
func Schema(v any) *schema.Schema { return hooks.Schema(v) }

// LayoutColumns returns the column layout of the records' schema of ds, a
// *trevni.Dataset (the columns a Trevni 2 file of the schema has, in file
// order, as package schema/layout lays them out), or an error for a data
// set without an Avro schema.
func LayoutColumns(ds any) ([]layout.Column, error) { return hooks.LayoutColumns(ds) }

// TrevniReader returns the Trevni 2 reader of f, a *trevni.File, or nil
// for a part of another format; Trevni1Reader and CLMNReader those of
// Trevni 1 and CLMN parts. They belong to f: closing f closes them.
func TrevniReader(f any) *format.Reader {
	r, _, _ := hooks.FileReaders(f)
	return r
}

// Trevni1Reader returns the Trevni 1 reader of f, a *trevni.File, or nil.
func Trevni1Reader(f any) *trevni1.Reader {
	_, r, _ := hooks.FileReaders(f)
	return r
}

// CLMNReader returns the CLMN reader of f, a *trevni.File, or nil.
func CLMNReader(f any) *clmn.Reader {
	_, _, r := hooks.FileReaders(f)
	return r
}

// FetchedEnd returns where what r (a *trevni.Reader or
// *trevni.ProtoReader) has fetched in the byte range [off, end) of the
// part being read ends: off when it fetched none of it, end when all. It
// may be called while another goroutine reads, for a runner that splits
// work dynamically (beam's trevniio). A local part is fetched as it is
// read: it returns end.
func FetchedEnd(r any, off, end int64) int64 { return hooks.FetchedEnd(r, off, end) }

// KeepMapOrder makes the writers made with wo, a *trevni.WriteOptions,
// keep the entries of maps written as Avro binary in the order written
// (Parquet's converter: a MAP's entries in the file's order, as DuckDB
// reads them); by default they are sorted by key.
func KeepMapOrder(wo any) { hooks.KeepMapOrder(wo) }
