// Package csvtable converts flat tables between CSV, CLMN and Trevni.
//
// CSV is read with RFC 4180 quoting (encoding/csv): a header row naming
// the columns, then one record per row, every record with as many cells as
// the header. Column types are given (an Avro record schema of flat
// fields) or inferred over every row by Infer: int, long, double, boolean
// or string, nullable when a cell is empty.
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
	"unicode/utf8"
)

// Type is the type of a flat field.
type Type uint8

// The field types. Infer gives Int, Long, Double, Boolean and String; Float
// and Enum come from Avro schemas.
const (
	String Type = iota
	Int
	Long
	Float
	Double
	Boolean
	Enum
)

var typeNames = [...]string{String: "string", Int: "int", Long: "long", Float: "float", Double: "double", Boolean: "boolean", Enum: "enum"}

// String returns the Avro name of the type.
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
// false, null as nothing.
func AppendText(dst []byte, f *Field, c *Cell) []byte {
	if c.Null {
		return dst
	}
	switch f.Type {
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
		switch s {
		case "true":
			c.B = true
		case "false":
		default:
			err = fmt.Errorf("not true or false")
		}
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
