// Package csvtable converts flat tables between CSV, CLMN and Trevni.
//
// CSV is read with RFC 4180 quoting, as DuckDB's read_csv reads it where
// the RFC leaves room (see recordReader): a header row naming
// the columns (or names made up, ReaderOptions.NoHeader), then one record
// per row, every record with as many cells as the header unless
// ReaderOptions.Ragged pads or drops the others. Column types are given
// (an Avro record schema of flat fields) or inferred over every row by
// Infer: int, long, decimal, double, boolean, date, time, timestamp or
// string, nullable when a cell is empty. Dates, times and timestamps are written
// as ISO 8601; decimals (from a schema) with exact digits.
//
// A Trevni file holds the table as Avro records of one flat record schema,
// written and read through packages shred and assemble; a CLMN file holds
// it as INT32, INT64, FLOAT64 and STRING columns (package clmn). The
// conversions stream: memory does not grow with the row count.
package csvtable

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The layouts of dates, times and timestamps in CSV.
const (
	dateLayout      = "2006-01-02"
	timeLayout      = "15:04:05.999999"
	timestampLayout = "2006-01-02T15:04:05.999999Z07:00"
	// localTimestampLayout writes a local timestamp: no zone.
	localTimestampLayout = "2006-01-02T15:04:05.999999"
	// The layouts of the nanosecond timestamps.
	timestampNanosLayout      = "2006-01-02T15:04:05.999999999Z07:00"
	localTimestampNanosLayout = "2006-01-02T15:04:05.999999999"
)

var (
	errPrecision = errors.New("more precise than the type holds")
	errRange     = errors.New("out of range")
)

// parseTemporal parses ISO 8601 text as a value of a date, time or
// timestamp type: a date as 2006-01-02, a time as 15:04:05 with an
// optional fraction of a second, a timestamp as parseTimestamp reads it
// (a timestamp without an offset is UTC; a local timestamp takes none).
// A fraction finer than the type's unit is an error, not rounded.
func parseTemporal(t Type, s string) (int64, error) {
	switch t {
	case Date:
		d, err := time.Parse(dateLayout, s)
		if err != nil {
			return 0, errors.New("not a date as 2006-01-02")
		}
		days := d.Unix() / 86400
		if days < math.MinInt32 || days > math.MaxInt32 {
			return 0, errRange
		}
		return days, nil
	case TimeMillis, TimeMicros:
		ns, err := parseTimeOfDay(s)
		if err != nil {
			return 0, err
		}
		unit := int64(time.Microsecond)
		if t == TimeMillis {
			unit = int64(time.Millisecond)
		}
		if ns%unit != 0 {
			return 0, errPrecision
		}
		return ns / unit, nil
	}
	sec, nsec, offset, err := parseTimestamp(s)
	if err != nil {
		return 0, err
	}
	local := t == LocalTimestampMillis || t == LocalTimestampMicros || t == LocalTimestampNanos
	if local && offset {
		return 0, errors.New("a local timestamp has no offset (2006-01-02T15:04:05, without Z or +02:00)")
	}
	unit := int64(time.Microsecond)
	switch t {
	case TimestampMillis, LocalTimestampMillis:
		unit = int64(time.Millisecond)
	case TimestampNanos, LocalTimestampNanos:
		unit = 1
	}
	if nsec%unit != 0 {
		return 0, errPrecision
	}
	// Seconds times units per second, plus the fraction, without
	// overflowing: the years' range is far wider than int64 microseconds.
	per := int64(time.Second) / unit
	if sec > math.MaxInt64/per-1 || sec < math.MinInt64/per+1 {
		return 0, errRange
	}
	return sec*per + nsec/unit, nil
}

var errTimestamp = errors.New("not a timestamp as 2006-01-02T15:04:05 or 2006-01-02 15:04:05, with an optional fraction and an optional Z or offset (+02, +0200, +02:00)")

// parseTimestamp parses a timestamp as DuckDB and ISO 8601 write it:
// 2006-01-02, T or a space, 15:04:05 with an optional fraction of up to
// nine digits, then an optional Z or offset as +02, +0200 or +02:00. It
// returns the seconds since the Unix epoch and the nanoseconds (of the
// time in UTC when there is an offset, of the wall-clock time read as UTC
// when there is none), and whether there was an offset.
func parseTimestamp(s string) (sec, nsec int64, offset bool, err error) {
	if len(s) < 19 || (s[10] != 'T' && s[10] != ' ') {
		return 0, 0, false, errTimestamp
	}
	d, err := time.Parse(dateLayout, s[:10])
	if err != nil {
		return 0, 0, false, errTimestamp
	}
	rest := s[11:]
	end := 8
	if len(rest) > 8 && rest[8] == '.' {
		end = 9
		for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
			end++
		}
	}
	ns, err := parseTimeOfDay(rest[:end])
	if err != nil {
		return 0, 0, false, errTimestamp
	}
	zone := rest[end:]
	var off int64
	switch {
	case zone == "":
	case zone == "Z":
		offset = true
	case zone[0] == '+' || zone[0] == '-':
		z := zone[1:]
		var hh, mm string
		switch {
		case len(z) == 2:
			hh, mm = z, "00"
		case len(z) == 4:
			hh, mm = z[:2], z[2:]
		case len(z) == 5 && z[2] == ':':
			hh, mm = z[:2], z[3:]
		default:
			return 0, 0, false, errTimestamp
		}
		h, err1 := strconv.ParseUint(hh, 10, 8)
		m, err2 := strconv.ParseUint(mm, 10, 8)
		if err1 != nil || err2 != nil || h > 23 || m > 59 {
			return 0, 0, false, errTimestamp
		}
		off = int64(h*3600 + m*60)
		if zone[0] == '-' {
			off = -off
		}
		offset = true
	default:
		return 0, 0, false, errTimestamp
	}
	return d.Unix() + ns/int64(time.Second) - off, ns % int64(time.Second), offset, nil
}

// parseTimeOfDay parses 15:04:05 with an optional fraction of a second
// (up to nine digits) and returns the nanoseconds after midnight.
func parseTimeOfDay(s string) (int64, error) {
	bad := errors.New("not a time as 15:04:05")
	if len(s) < 8 || s[2] != ':' || s[5] != ':' {
		return 0, bad
	}
	two := func(i int) int64 {
		if s[i] < '0' || s[i] > '9' || s[i+1] < '0' || s[i+1] > '9' {
			return -1
		}
		return int64(s[i]-'0')*10 + int64(s[i+1]-'0')
	}
	h, m, sec := two(0), two(3), two(6)
	if h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 59 {
		return 0, bad
	}
	ns := ((h*60+m)*60 + sec) * int64(time.Second)
	if len(s) == 8 {
		return ns, nil
	}
	frac := s[9:]
	if s[8] != '.' || len(frac) == 0 || len(frac) > 9 {
		return 0, bad
	}
	var f int64
	for i := 0; i < 9; i++ {
		f *= 10
		if i < len(frac) {
			if frac[i] < '0' || frac[i] > '9' {
				return 0, bad
			}
			f += int64(frac[i] - '0')
		}
	}
	return ns + f, nil
}

// isBool reports whether s is a boolean as DuckDB's read_csv_auto takes
// one: true or false in any case, or T or F (t, f).
func isBool(s string) bool {
	switch len(s) {
	case 1:
		return s == "t" || s == "T" || s == "f" || s == "F"
	case 4, 5:
		return strings.EqualFold(s, "true") || strings.EqualFold(s, "false")
	}
	return false
}

// Type is the type of a flat field.
type Type uint8

// The field types. Infer gives Int, Long, Decimal, Double, Boolean, Date,
// TimeMillis, TimeMicros, TimestampMillis, TimestampMicros (and their
// local and nanosecond kin) and String;
// Float and Enum come from Avro schemas. The temporal types are Avro's
// logical types of those names (date and time-millis on int, the others
// on long), held in Cell.I as Avro holds them: days since 1970-01-01,
// milliseconds or microseconds after midnight, or since the Unix epoch.
const (
	String Type = iota
	Int
	Long
	Float
	Double
	Boolean
	Enum
	Date
	TimeMillis
	TimeMicros
	TimestampMillis
	TimestampMicros
	// Decimal is Avro's logical decimal on bytes or fixed (Field.Size):
	// the unscaled value's big-endian two's complement bytes in Cell.S.
	Decimal
	// LocalTimestampMillis and LocalTimestampMicros are wall-clock times
	// without a time zone (Avro's local-timestamp-millis and -micros,
	// DuckDB's TIMESTAMP), held as if in UTC.
	LocalTimestampMillis
	LocalTimestampMicros
	// TimestampNanos and LocalTimestampNanos are Avro's timestamp-nanos
	// and local-timestamp-nanos (DuckDB's TIMESTAMP_NS), for cells with a
	// fraction finer than microseconds, which a micros column would lose.
	TimestampNanos
	LocalTimestampNanos
)

var typeNames = [...]string{String: "string", Int: "int", Long: "long", Float: "float", Double: "double", Boolean: "boolean", Enum: "enum",
	Date: "date", TimeMillis: "time-millis", TimeMicros: "time-micros", TimestampMillis: "timestamp-millis", TimestampMicros: "timestamp-micros", Decimal: "decimal",
	LocalTimestampMillis: "local-timestamp-millis", LocalTimestampMicros: "local-timestamp-micros",
	TimestampNanos: "timestamp-nanos", LocalTimestampNanos: "local-timestamp-nanos"}

// temporal reports whether t is a logical date, time or timestamp type.
func (t Type) temporal() bool {
	return t >= Date && t <= TimestampMicros || t >= LocalTimestampMillis && t <= LocalTimestampNanos
}

// avroPrimitive returns the Avro primitive under a logical type.
func (t Type) avroPrimitive() string {
	switch t {
	case Date, TimeMillis:
		return "int"
	case TimeMicros, TimestampMillis, TimestampMicros, LocalTimestampMillis, LocalTimestampMicros, TimestampNanos, LocalTimestampNanos:
		return "long"
	}
	return t.String()
}

// String returns the Avro name of the type (of the logical type for a
// date, time or timestamp).
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Field is one column of a flat table.
type Field struct {
	// Name is the column's name in CSV and CLMN headers.
	Name string
	// AvroName is the field's name in the Avro schema: Name made a valid
	// Avro name (see AvroName); "" means AvroName(Name).
	AvroName string
	Type     Type
	// Nullable fields may hold null, written as an empty CSV cell.
	Nullable bool
	// Symbols are an Enum's symbols.
	Symbols []string
	// Precision and Scale are a Decimal's digits, and digits after the
	// point; Size is the size of its fixed type, 0 for bytes.
	Precision, Scale, Size int
	// nullSecond marks a nullable field whose Avro union is [T, "null"].
	nullSecond bool
}

// Cell is one value of a row. Which field holds it depends on the field's
// type: I for Int, Long and Enum (the symbol's index), F for Float and
// Double, B for Boolean, S for String (and the symbol of an Enum).
type Cell struct {
	Null bool
	I    int64
	F    float64
	B    bool
	S    []byte
}

// AppendText appends the CSV text of c as a value of field f: integers in
// decimal, floating-point numbers by FormatDouble, booleans as true or
// false, dates as 2006-01-02, times as 15:04:05 and timestamps in UTC as
// 2006-01-02T15:04:05Z (RFC 3339), both with a fraction of a second when
// there is one, without trailing zeros; decimals with all their scale's
// digits; null as nothing.
func AppendText(dst []byte, f *Field, c *Cell) []byte {
	if c.Null {
		return dst
	}
	switch f.Type {
	case Decimal:
		return appendDecimal(dst, c.S, f.Scale)
	case Date:
		return time.Unix(c.I*86400, 0).UTC().AppendFormat(dst, dateLayout)
	case TimeMillis:
		return time.UnixMilli(c.I).UTC().AppendFormat(dst, timeLayout)
	case TimeMicros:
		return time.UnixMicro(c.I).UTC().AppendFormat(dst, timeLayout)
	case TimestampMillis:
		return time.UnixMilli(c.I).UTC().AppendFormat(dst, timestampLayout)
	case TimestampMicros:
		return time.UnixMicro(c.I).UTC().AppendFormat(dst, timestampLayout)
	case LocalTimestampMillis:
		return time.UnixMilli(c.I).UTC().AppendFormat(dst, localTimestampLayout)
	case LocalTimestampMicros:
		return time.UnixMicro(c.I).UTC().AppendFormat(dst, localTimestampLayout)
	case TimestampNanos:
		return time.Unix(0, c.I).UTC().AppendFormat(dst, timestampNanosLayout)
	case LocalTimestampNanos:
		return time.Unix(0, c.I).UTC().AppendFormat(dst, localTimestampNanosLayout)
	case Int, Long:
		return strconv.AppendInt(dst, c.I, 10)
	case Float:
		return appendFloat(dst, c.F, 32)
	case Double:
		return appendFloat(dst, c.F, 64)
	case Boolean:
		return strconv.AppendBool(dst, c.B)
	}
	return append(dst, c.S...)
}

// FormatDouble formats a double as CSV cells hold it: the shortest decimal
// text that parses back to the same number, in plain notation when
// 1e-7 <= |v| < 1e21 (as JavaScript prints numbers) and in exponent
// notation otherwise; NaN, Infinity and -Infinity as those words.
func FormatDouble(v float64) string { return string(appendFloat(nil, v, 64)) }

func appendFloat(dst []byte, v float64, bits int) []byte {
	switch {
	case math.IsNaN(v):
		return append(dst, "NaN"...)
	case math.IsInf(v, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(v, -1):
		return append(dst, "-Infinity"...)
	}
	if a := math.Abs(v); a == 0 || (a >= 1e-7 && a < 1e21) {
		return strconv.AppendFloat(dst, v, 'f', -1, bits)
	}
	return strconv.AppendFloat(dst, v, 'e', -1, bits)
}

// parseText parses cell text s as a value of field f into c. An empty cell
// is null in a nullable field and the empty string in a string field.
func parseText(f *Field, s string, c *Cell) error {
	*c = Cell{S: c.S[:0]}
	if s == "" {
		if f.Nullable {
			c.Null = true
			return nil
		}
		if f.Type == String {
			return nil
		}
		return fmt.Errorf("empty cell in non-nullable %s field %q", f.Type, f.Name)
	}
	var err error
	switch f.Type {
	case String:
		if !utf8.ValidString(s) {
			return errors.New("cell is not valid UTF-8")
		}
		c.S = append(c.S, s...)
	case Int:
		c.I, err = strconv.ParseInt(s, 10, 32)
	case Long:
		c.I, err = strconv.ParseInt(s, 10, 64)
	case Float, Double:
		bits := 64
		if f.Type == Float {
			bits = 32
		}
		c.F, err = parseFloat(s, bits)
	case Boolean:
		switch {
		case strings.EqualFold(s, "true") || s == "t" || s == "T":
			c.B = true
		case strings.EqualFold(s, "false") || s == "f" || s == "F":
		default:
			err = fmt.Errorf("not true or false (in any case, or T or F)")
		}
	case Date, TimeMillis, TimeMicros, TimestampMillis, TimestampMicros, LocalTimestampMillis, LocalTimestampMicros, TimestampNanos, LocalTimestampNanos:
		c.I, err = parseTemporal(f.Type, s)
	case Decimal:
		c.S, err = parseDecimal(c.S, f, s)
	case Enum:
		c.I = -1
		for i, sym := range f.Symbols {
			if sym == s {
				c.I = int64(i)
			}
		}
		if c.I < 0 {
			err = fmt.Errorf("not one of the enum's symbols")
		}
		c.S = append(c.S, s...)
	}
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok {
			err = ne.Err
		}
		return fmt.Errorf("%q is not a valid %s: %w", s, f.Type, err)
	}
	return nil
}

// parseFloat parses a decimal number or NaN, Infinity, -Infinity.
func parseFloat(s string, bits int) (float64, error) {
	switch s {
	case "NaN":
		return math.NaN(), nil
	case "Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	}
	if !isDecimal(s) {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseFloat(s, bits)
}

// isDecimal reports whether s is a decimal number:
// [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
