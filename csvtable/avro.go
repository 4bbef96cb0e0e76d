package csvtable

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/trevni-go/trevni/schema"
)

// NameProp is the field attribute that keeps a column's CSV or CLMN name
// in an Avro schema when it is not a valid Avro name.
const NameProp = "csv.name"

// AvroName makes a column name a valid Avro name: every character other
// than A-Z, a-z, 0-9 and _ becomes _, and a name that is empty or starts
// with a digit gets a leading _.
func AvroName(name string) string { return schema.MakeName(name) }

// AvroNames returns the names of the fields in the Avro schema that
// AvroSchema makes of them, in order: each field's AvroName, or
// AvroName(Name) when that is "", made distinct by a numeric suffix ("_2",
// "_3"...). It does not change the fields.
func AvroNames(fields []Field) []string {
	used := make(map[string]bool, len(fields))
	names := make([]string, len(fields))
	for i := range fields {
		an := fields[i].AvroName
		if an == "" {
			an = AvroName(fields[i].Name)
		}
		base := an
		for n := 2; used[an]; n++ {
			an = base + "_" + strconv.Itoa(n)
		}
		used[an] = true
		names[i] = an
	}
	return names
}

// AvroSchema returns the JSON text of an Avro record schema called name
// with one field per column, named as AvroNames says: nullable fields as a
// union of null and the type. A field whose Avro name is not its own name
// keeps its name in the attribute csv.name (NameProp). The keys come in
// the order a person writes them: a type's "type" first, then its name,
// its logical type and their parameters; a field's name, then its type.
func AvroSchema(name string, fields []Field) string {
	type jsonField struct {
		Name    string  `json:"name"`
		Type    any     `json:"type"`
		CSVName *string `json:"csv.name,omitempty"`
	}
	type jsonType struct {
		Type        string `json:"type"`
		Name        string `json:"name,omitempty"`
		Size        int    `json:"size,omitempty"`
		LogicalType string `json:"logicalType,omitempty"`
		Precision   int    `json:"precision,omitempty"`
		Scale       *int   `json:"scale,omitempty"`
	}
	type jsonEnum struct {
		Type    string   `json:"type"`
		Name    string   `json:"name"`
		Symbols []string `json:"symbols"`
	}
	names := AvroNames(fields)
	out := make([]jsonField, len(fields))
	for i := range fields {
		f := &fields[i]
		an := names[i]
		var t any = f.Type.String()
		if f.Type.temporal() {
			t = jsonType{Type: f.Type.avroPrimitive(), LogicalType: f.Type.String()}
		}
		if f.Type == Decimal {
			d := jsonType{Type: "bytes", LogicalType: "decimal", Precision: f.Precision, Scale: &f.Scale}
			if f.Size > 0 {
				d.Type, d.Name, d.Size = "fixed", an+"_decimal", f.Size
			}
			t = d
		}
		if f.Type == Enum {
			t = jsonEnum{Type: "enum", Name: an + "_enum", Symbols: f.Symbols}
		}
		if f.Nullable && f.nullSecond {
			t = []any{t, "null"}
		} else if f.Nullable {
			t = []any{"null", t}
		}
		out[i] = jsonField{Name: an, Type: t}
		if an != f.Name {
			name := f.Name
			out[i].CSVName = &name
		}
	}
	b, _ := json.Marshal(struct {
		Type   string      `json:"type"`
		Name   string      `json:"name"`
		Fields []jsonField `json:"fields"`
	}{"record", name, out})
	return string(b)
}

// FieldsOf returns the fields of a flat record schema: every field of type
// boolean, int, long, float, double, string or enum, a date, time-millis,
// time-micros, timestamp-millis, timestamp-micros or timestamp-nanos (or
// their local- kin), a decimal on bytes or
// fixed, or a union of null and one of these. Any other field is an error naming it; so is a schema that
// is not a record.
func FieldsOf(s *schema.Schema) ([]Field, error) {
	if s.Kind != schema.Record {
		return nil, fmt.Errorf("schema is a %v, not a record", s.Kind)
	}
	fields := make([]Field, 0, len(s.Fields))
	for _, sf := range s.Fields {
		f, err := fieldOf(sf)
		if err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// columnName returns the CSV name of an Avro field: its name in the data
// it came from (schema.Field.SourceName: a CSV header's, a JSON key's, an
// Arrow column's).
func columnName(sf *schema.Field) string { return sf.SourceName() }

// fieldOf returns the flat field of an Avro field, or an error naming it.
func fieldOf(sf *schema.Field) (Field, error) {
	f := Field{Name: columnName(sf), AvroName: sf.Name}
	t := sf.Type
	if t.Kind == schema.Union {
		if len(t.Branches) != 2 || (t.Branches[0].Kind == schema.Null) == (t.Branches[1].Kind == schema.Null) {
			return f, fmt.Errorf("field %q: a union other than of null and one type is not a flat value", sf.Name)
		}
		f.Nullable = true
		t = t.Branches[0]
		if t.Kind == schema.Null {
			t = sf.Type.Branches[1]
		} else {
			f.nullSecond = true
		}
	}
	switch {
	case t.Logical == schema.LogicalDecimal && (t.Kind == schema.Bytes || t.Kind == schema.Fixed):
		f.Type, f.Precision, f.Scale = Decimal, t.Precision, t.Scale
		if t.Precision > maxDecimalPrecision {
			return f, fmt.Errorf("field %q: decimal precision %d is over %d", sf.Name, t.Precision, maxDecimalPrecision)
		}
		if t.Kind == schema.Fixed {
			f.Size = t.Size
		}
		return f, nil
	case t.Logical == schema.LogicalDate && t.Kind == schema.Int:
		f.Type = Date
		return f, nil
	case t.Logical == schema.LogicalTimeMillis && t.Kind == schema.Int:
		f.Type = TimeMillis
		return f, nil
	case t.Logical == schema.LogicalTimeMicros && t.Kind == schema.Long:
		f.Type = TimeMicros
		return f, nil
	case t.Logical == schema.LogicalTimestampMillis && t.Kind == schema.Long:
		f.Type = TimestampMillis
		return f, nil
	case t.Logical == schema.LogicalTimestampMicros && t.Kind == schema.Long:
		f.Type = TimestampMicros
		return f, nil
	case t.Logical == schema.LogicalLocalTimestampMillis && t.Kind == schema.Long:
		f.Type = LocalTimestampMillis
		return f, nil
	case t.Logical == schema.LogicalLocalTimestampMicros && t.Kind == schema.Long:
		f.Type = LocalTimestampMicros
		return f, nil
	case t.Logical == schema.LogicalTimestampNanos && t.Kind == schema.Long:
		f.Type = TimestampNanos
		return f, nil
	case t.Logical == schema.LogicalLocalTimestampNanos && t.Kind == schema.Long:
		f.Type = LocalTimestampNanos
		return f, nil
	}
	switch t.Kind {
	case schema.String:
		f.Type = String
	case schema.Int:
		f.Type = Int
	case schema.Long:
		f.Type = Long
	case schema.Float:
		f.Type = Float
	case schema.Double:
		f.Type = Double
	case schema.Boolean:
		f.Type = Boolean
	case schema.Enum:
		f.Type, f.Symbols = Enum, t.Symbols
	default:
		return f, fmt.Errorf("field %q: %v is not a flat value (CSV holds boolean, int, long, float, double, string, enum, and dates, times, timestamps and decimals)", sf.Name, t.Kind)
	}
	return f, nil
}

// appendAvro appends the Avro binary encoding of c as field f.
func appendAvro(dst []byte, f *Field, c *Cell) []byte {
	if f.Nullable {
		// The branch index, zigzag-encoded: 0 for branch 0, 2 for branch 1.
		null, value := byte(0), byte(2)
		if f.nullSecond {
			null, value = 2, 0
		}
		if c.Null {
			return append(dst, null)
		}
		dst = append(dst, value)
	}
	switch f.Type {
	case Int, Long, Enum, Date, TimeMillis, TimeMicros, TimestampMillis, TimestampMicros, LocalTimestampMillis, LocalTimestampMicros, TimestampNanos, LocalTimestampNanos:
		return binary.AppendVarint(dst, c.I)
	case Float:
		return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(c.F)))
	case Double:
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(c.F))
	case Boolean:
		if c.B {
			return append(dst, 1)
		}
		return append(dst, 0)
	case Decimal:
		if f.Size > 0 {
			return append(dst, c.S...)
		}
	}
	dst = binary.AppendVarint(dst, int64(len(c.S)))
	return append(dst, c.S...)
}

var errShort = errors.New("record ends early")

// decodeAvro decodes field f's value from the start of data into c and
// returns the rest of data.
func decodeAvro(data []byte, f *Field, c *Cell) ([]byte, error) {
	*c = Cell{S: c.S[:0]}
	if f.Nullable {
		if len(data) == 0 {
			return nil, errShort
		}
		null := byte(0)
		if f.nullSecond {
			null = 2
		}
		if data[0] == null {
			c.Null = true
			return data[1:], nil
		}
		data = data[1:]
	}
	switch f.Type {
	case Int, Long, Enum, Date, TimeMillis, TimeMicros, TimestampMillis, TimestampMicros, LocalTimestampMillis, LocalTimestampMicros, TimestampNanos, LocalTimestampNanos:
		v, n := binary.Varint(data)
		if n <= 0 {
			return nil, errShort
		}
		c.I, data = v, data[n:]
		if f.Type == Enum {
			if v < 0 || v >= int64(len(f.Symbols)) {
				return nil, fmt.Errorf("enum index %d out of range", v)
			}
			c.S = append(c.S, f.Symbols[v]...)
		}
	case Float:
		if len(data) < 4 {
			return nil, errShort
		}
		c.F, data = float64(math.Float32frombits(binary.LittleEndian.Uint32(data))), data[4:]
	case Double:
		if len(data) < 8 {
			return nil, errShort
		}
		c.F, data = math.Float64frombits(binary.LittleEndian.Uint64(data)), data[8:]
	case Boolean:
		if len(data) < 1 {
			return nil, errShort
		}
		c.B, data = data[0] != 0, data[1:]
	case Decimal:
		if f.Size > 0 {
			if len(data) < f.Size {
				return nil, errShort
			}
			c.S = append(c.S, data[:f.Size]...)
			return data[f.Size:], nil
		}
		fallthrough
	default:
		l, n := binary.Varint(data)
		if n <= 0 || l < 0 || l > int64(len(data)-n) {
			return nil, errShort
		}
		c.S = append(c.S, data[n:n+int(l)]...)
		data = data[n+int(l):]
	}
	return data, nil
}
