package main

import (
	"bytes"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema/layout"
)

const inspectHelp = `
Inspect writes one self-contained HTML page describing a Trevni file, to
see at a glance where its bytes are. The page holds the Avro schema
(avro.schema, indented) when the file has one, the file's metadata, a bar
of the whole file split into its header and its columns, and a table of
the columns: number, name, type, codec, checksum, parent, number of
blocks, compressed and uncompressed sizes, and share of the file. Each
column's blocks are drawn as a bar of segments as wide as their stored
size; hovering over a segment shows the block's rows, first row, sizes,
offset, first value (trevni.values columns) and, when the column has
block statistics (stats.blocks), its value count, minimum, maximum and
whether they are inexact.

The page loads nothing from the network and runs no script. Everything
taken from the file is escaped. Past 1000 columns, the remaining ones are
summed up in one row; a column with more blocks than fit in its bar has
consecutive blocks drawn as one segment, and the page says so.

Inspect reads Trevni version 2 files only: a version-1 file or a CLMN
file is refused with an error (use meta on those).

The page goes to OUT.html if given, otherwise to standard output.

Examples (the second runs in the repository's top directory):

	trevni inspect weather.trv weather.html
	trevni inspect testdata/interop/email/email.deflate.crc32.trv email.html
`

// Bounds on the page, so that a file with a huge number of columns or
// blocks still gives a page a browser can open.
const (
	inspectMaxColumns  = 1000    // columns listed one by one
	inspectMaxSegments = 20000   // block segments on the whole page
	inspectColSegments = 200     // most segments of one column
	inspectMinSegments = 8       // fewest segments a column may be cut to
	inspectMaxText     = 200     // bytes of a value shown in a tooltip or cell
	inspectMaxName     = 48      // characters of a column name shown in the table (all of it on hover)
	inspectMaxMeta     = 4096    // bytes of a metadata value shown
	inspectMaxSchema   = 1 << 20 // bytes of avro.schema shown
)

//go:embed inspect.html
var inspectTemplateText string

// inspectTemplate is parsed once per run; it holds no state.
func inspectTemplate() (*template.Template, error) {
	return template.New("inspect").Funcs(template.FuncMap{
		"size": humanSize,
	}).Parse(inspectTemplateText)
}

// inspectCommand sets up "trevni inspect".
func inspectCommand(fs *flag.FlagSet) runFunc {
	return func(e *env, ins []string, out *output) error {
		var page *inspectData
		err := e.withFile(ins[0], e.openOptions("", false), func(f *trevni.File) error {
			name := f.Part().Name()
			switch f.Format() {
			case trevni.Trevni1:
				return fmt.Errorf("%s: a Trevni version 1 file: inspect reads version 2 files only (try 'trevni meta')", name)
			case trevni.CLMN:
				return fmt.Errorf("%s: a CLMN file: inspect reads Trevni version 2 files only (try 'trevni meta')", name)
			case trevni.Avro, trevni.Parquet:
				return fmt.Errorf("%s: %s: inspect reads Trevni version 2 files only (try 'trevni schema')", name, formatArticle(f.Format()))
			}
			var err error
			if page, err = inspectPage(frontdoor.TrevniReader(f), name); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			return nil
		})
		if err != nil {
			return err
		}
		tmpl, err := inspectTemplate()
		if err != nil {
			return err
		}
		if err := tmpl.Execute(out, page); err != nil {
			return err
		}
		return nil
	}
}

// inspectData is what the page template shows.
type inspectData struct {
	Name                string
	Size, Rows          int64
	NumColumns          int
	Codec, Checksum     string
	HeaderSize          int64
	HeaderShare         float64
	Schema              string // indented avro.schema, or ""
	SchemaCut           bool
	Meta                []inspectMeta
	Columns             []*inspectColumn
	Hidden              int   // columns past inspectMaxColumns
	HiddenSize          int64 // their bytes
	HiddenShare         float64
	Grouped             bool // some column's blocks were drawn grouped
	MaxSegmentsByColumn int
}

// inspectMeta is one metadata entry.
type inspectMeta struct {
	Key, Value string
	Binary     bool // Value is hex
	Note       string
}

// inspectColumn is one row of the columns table.
type inspectColumn struct {
	Number                   int
	Name, Type, Parent       string
	ShortName, ShortParent   string // cut in the middle to inspectMaxName characters
	Depth                    int
	Array, Values            bool
	Codec, Checksum          string
	Start, Span              int64
	Compressed, Uncompressed int64
	Share                    float64 // of the file, in percent
	BarWidth                 float64 // of the widest column, in percent
	Hue                      int
	Blocks                   int
	Segments                 []inspectSegment
	Grouped                  int // blocks per segment, when more than 1
	HasStats                 bool
	StatsNote                string // why statistics are not shown
	Meta                     []inspectMeta
	Ratio                    string
}

// inspectSegment is one block, or several consecutive ones, of a column's
// bar.
type inspectSegment struct {
	Grow  int64  // stored size, for the segment's width
	Title string // shown on hover
	Light bool   // alternate shade
}

// inspectPage gathers what the page shows. It reads the header and the
// block descriptors, never the blocks.
func inspectPage(rd *format.Reader, name string) (*inspectData, error) {
	n := rd.NumColumns()
	d := &inspectData{
		Name: clean(name, 1000), Size: rd.Size(), Rows: rd.RowCount(), NumColumns: n,
		Codec: clean(rd.Codec(), inspectMaxText), Checksum: clean(rd.Checksum(), inspectMaxText),
	}
	fileMeta := rd.Meta()
	for i := range fileMeta.Len() {
		k, v := fileMeta.Key(i), fileMeta.Value(i)
		if k == layout.MetaAvroSchema {
			d.Schema, d.SchemaCut = indentSchema(v)
			d.Meta = append(d.Meta, inspectMeta{Key: k, Value: "", Note: "shown under Schema"})
			continue
		}
		d.Meta = append(d.Meta, metaEntry(k, v))
	}
	d.HeaderSize = d.Size
	if n > 0 {
		d.HeaderSize = rd.ColumnStart(0)
	}
	d.HeaderShare = percent(d.HeaderSize, d.Size)

	perColumn := inspectColSegments
	if shown := min(n, inspectMaxColumns); shown > 0 {
		perColumn = max(inspectMinSegments, min(inspectColSegments, inspectMaxSegments/shown))
	}
	d.MaxSegmentsByColumn = perColumn
	depth := make([]int, n)
	var widest int64
	for i := range n {
		start := rd.ColumnStart(i)
		end := d.Size
		if i+1 < n {
			end = rd.ColumnStart(i + 1)
		}
		span := max(end-start, 0)
		if i >= inspectMaxColumns {
			d.Hidden++
			d.HiddenSize += span
			continue
		}
		c, err := rd.Column(i)
		if err != nil {
			return nil, err
		}
		if p := rd.Parent(i); p >= 0 && p < i {
			depth[i] = depth[p] + 1
		}
		bl, err := rd.Blocks(i)
		if err != nil {
			return nil, fmt.Errorf("column %d (%s): %w", i, c.Name, err)
		}
		col := &inspectColumn{
			Number: i, Name: clean(c.Name, inspectMaxText), Type: c.Type.String(),
			Parent: clean(c.Parent, inspectMaxText), Depth: min(depth[i], 20),
			ShortName: middleCut(clean(c.Name, inspectMaxText), inspectMaxName), ShortParent: middleCut(clean(c.Parent, inspectMaxText), inspectMaxName),
			Array: c.Array, Values: c.Values,
			Codec: clean(rd.ColumnCodec(i), inspectMaxText), Checksum: clean(rd.ColumnChecksum(i), inspectMaxText),
			Start: start, Span: span, Share: percent(span, d.Size),
			Hue: (i * 137) % 360, Blocks: len(bl),
		}
		for _, b := range bl {
			col.Compressed += int64(b.CompressedSize)
			col.Uncompressed += int64(b.UncompressedSize)
		}
		if col.Compressed > 0 {
			col.Ratio = strconv.FormatFloat(float64(col.Uncompressed)/float64(col.Compressed), 'f', 2, 64)
		}
		cm := rd.RawColumnMeta(i)
		for j := range cm.Len() {
			k, v := cm.Key(j), cm.Value(j)
			switch k {
			case "trevni.name", "trevni.type", "trevni.parent", "trevni.array", "trevni.values", "trevni.codec", "trevni.checksum":
				continue // in the table's cells
			case stats.MetaKey:
				continue // shown on the blocks
			}
			col.Meta = append(col.Meta, metaEntry(k, v))
		}
		var st []stats.Block
		if raw, ok := cm.Get(stats.MetaKey); ok {
			sc, err := stats.Decode(raw)
			switch {
			case err != nil:
				col.StatsNote = "statistics unreadable: " + clean(err.Error(), inspectMaxText)
			case len(sc.Blocks) != len(bl):
				col.StatsNote = fmt.Sprintf("statistics ignored: %d blocks described, the column has %d", len(sc.Blocks), len(bl))
			case sc.Type != stats.Type(c.Type):
				col.StatsNote = fmt.Sprintf("statistics ignored: they are of type %s, the column is %s", sc.Type, c.Type)
			default:
				st = sc.Blocks
				col.HasStats = true
			}
		}
		col.Segments, col.Grouped = segments(bl, st, stats.Type(c.Type), perColumn)
		if col.Grouped > 1 {
			d.Grouped = true
		}
		widest = max(widest, span)
		d.Columns = append(d.Columns, col)
	}
	for _, col := range d.Columns {
		if widest > 0 {
			col.BarWidth = max(100*float64(col.Span)/float64(widest), 0.5)
		}
	}
	d.HiddenShare = percent(d.HiddenSize, d.Size)
	return d, nil
}

// segments cuts a column's blocks into at most limit segments of equal
// numbers of consecutive blocks, and describes each. st is the blocks'
// statistics, or nil.
func segments(bl []format.BlockInfo, st []stats.Block, t stats.Type, limit int) ([]inspectSegment, int) {
	per := 1
	if len(bl) > limit {
		per = (len(bl) + limit - 1) / limit
	}
	segs := make([]inspectSegment, 0, (len(bl)+per-1)/per)
	for lo := 0; lo < len(bl); lo += per {
		hi := min(lo+per, len(bl))
		var rows, comp, uncomp int64
		for _, b := range bl[lo:hi] {
			rows += b.Rows
			comp += int64(b.CompressedSize)
			uncomp += int64(b.UncompressedSize)
		}
		var sb strings.Builder
		if hi-lo == 1 {
			fmt.Fprintf(&sb, "block %d\n", lo)
		} else {
			fmt.Fprintf(&sb, "blocks %d to %d (%d blocks drawn as one)\n", lo, hi-1, hi-lo)
		}
		fmt.Fprintf(&sb, "rows: %d (first row %d)\n", rows, bl[lo].FirstRow)
		fmt.Fprintf(&sb, "stored: %s (%d bytes) at offset %d\n", humanSize(comp), comp, bl[lo].Offset)
		fmt.Fprintf(&sb, "uncompressed: %s (%d bytes)\n", humanSize(uncomp), uncomp)
		if hi-lo == 1 && bl[lo].FirstValue != nil {
			fmt.Fprintf(&sb, "first value: %s\n", showValue(bl[lo].FirstValue))
		}
		if st != nil {
			s := st[lo]
			for _, o := range st[lo+1 : hi] {
				s = stats.Merge(t, s, o)
			}
			describeStats(&sb, t, s)
		}
		segs = append(segs, inspectSegment{
			Grow: max(comp, 1), Title: strings.TrimSuffix(sb.String(), "\n"), Light: (lo/per)%2 == 1,
		})
	}
	return segs, per
}

// describeStats writes the statistics of a block for its tooltip.
func describeStats(sb *strings.Builder, t stats.Type, s stats.Block) {
	fmt.Fprintf(sb, "values: %d\n", s.Values)
	if s.Lengths > 0 || s.NonEmpty > 0 {
		fmt.Fprintf(sb, "lengths: %d, not zero: %d\n", s.Lengths, s.NonEmpty)
	}
	if s.NaN {
		sb.WriteString("holds NaN\n")
	}
	if !s.HasBounds {
		sb.WriteString("no bounds\n")
		return
	}
	lo, hi := "?", "?"
	switch {
	case t == stats.Boolean:
		lo, hi = strconv.FormatBool(s.MinInt != 0), strconv.FormatBool(s.MaxInt != 0)
	case t.IsInteger():
		lo, hi = strconv.FormatInt(s.MinInt, 10), strconv.FormatInt(s.MaxInt, 10)
	case t.IsFloat():
		lo, hi = strconv.FormatFloat(s.MinFloat, 'g', -1, 64), strconv.FormatFloat(s.MaxFloat, 'g', -1, 64)
	case t.IsBytes():
		lo, hi = showBytes(s.MinBytes, t == stats.String), showBytes(s.MaxBytes, t == stats.String)
		if s.NoMax {
			hi = "none"
		}
	}
	fmt.Fprintf(sb, "min: %s%s\n", lo, map[bool]string{true: " (inexact: a prefix)"}[s.MinInexact])
	fmt.Fprintf(sb, "max: %s%s\n", hi, map[bool]string{true: " (inexact: rounded up)"}[s.MaxInexact])
}

// showValue shows a first value from a block descriptor.
func showValue(v any) string {
	switch v := v.(type) {
	case string:
		return showBytes([]byte(v), true)
	case []byte:
		return showBytes(v, false)
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return clean(fmt.Sprint(v), inspectMaxText)
}

// showBytes shows a string value quoted, when it is valid UTF-8 and text
// is set, and in hex otherwise; long values are cut.
func showBytes(b []byte, text bool) string {
	cut := ""
	if len(b) > inspectMaxText {
		b, cut = b[:inspectMaxText], "…"
	}
	if text && utf8.Valid(b) {
		return strconv.Quote(string(b)) + cut
	}
	return "0x" + hex.EncodeToString(b) + cut
}

// metaEntry shows a metadata entry: text when it is valid UTF-8, hex
// otherwise, cut to inspectMaxMeta bytes.
func metaEntry(k string, v []byte) inspectMeta {
	m := inspectMeta{Key: clean(k, inspectMaxText)}
	if len(v) > inspectMaxMeta {
		m.Note = fmt.Sprintf("%d bytes, the first %d shown", len(v), inspectMaxMeta)
		v = v[:inspectMaxMeta]
	}
	if utf8.Valid(v) {
		m.Value = string(v)
	} else {
		m.Value, m.Binary = hex.EncodeToString(v), true
	}
	return m
}

// indentSchema indents a stored avro.schema; text that is not JSON is
// shown as it is. Both are cut to inspectMaxSchema bytes.
func indentSchema(v []byte) (string, bool) {
	var buf bytes.Buffer
	if json.Indent(&buf, v, "", "  ") == nil {
		v = buf.Bytes()
	}
	cut := len(v) > inspectMaxSchema
	if cut {
		v = v[:inspectMaxSchema]
	}
	return strings.ToValidUTF8(string(v), "\uFFFD"), cut
}

// clean makes s valid UTF-8 and at most n bytes long, for the page; the
// template escapes it.
func clean(s string, n int) string {
	if len(s) > n {
		s = s[:n] + "…"
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// middleCut shortens s to n characters, if it is longer, by replacing
// its middle with an ellipsis, so that both ends of a long column name
// (the record it is in, the field) stay visible.
func middleCut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 2
	tail := n - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// percent is 100*a/b, or 0.
func percent(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// humanSize shows a byte count in B, KiB, MiB or GiB.
func humanSize(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	f := float64(n)
	u := -1
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64) + " " + units[u]
}

// inspectSpec is the command "trevni inspect".
func inspectSpec() *command {
	return &command{
		name: "inspect", output: optionalOutput, args: "IN.trv [OUT.html]", minArgs: 1, maxArgs: 2,
		summary: "write an HTML page showing where a file's bytes are", help: inspectHelp, setup: inspectCommand,
	}
}
