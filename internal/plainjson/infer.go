package plainjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/trevni-go/trevni/internal/avrojson"
	"github.com/trevni-go/trevni/schema"
)

// Limits of inference: the fields of all records together, and the depth
// of nesting.
const (
	maxFields = 10_000
	maxDepth  = 100
)

// An Inferrer infers the Avro schema of lines of plain JSON, each an
// object, from all of them, holding only the schema seen so far (its
// memory grows with the distinct fields, not the lines): records from
// objects, with the union of their keys in the order first seen; boolean;
// long for integers, widened to double once any number of the same place
// has a fraction or exponent, a decimal of scale 0 when one is beyond a
// long (never a double that would lose digits: integers of more than 53
// bits and numbers with a fraction in one place make a decimal holding
// them all, refused beyond 76 digits); string, or a date, time-millis or
// -micros, timestamp-* or local-timestamp-* (the finest unit its fractions
// need) where every string of the place is one of that kind (see
// parseTime; zoned and unzoned timestamps together stay strings, as in
// DuckDB's read_json_auto); arrays, their items
// inferred from all elements. A key that is not an Avro name is made one
// (schema.MakeName, distinct within its record), the key kept in the
// field's json.name. A place that holds null, or a field
// absent from some object, is nullable: a union with null first, the
// field defaulting to null. A place that holds values of several kinds is
// a union of them, in the order null, boolean, number, string, record,
// array, which plain JSON tells apart. The zero Inferrer is ready to use.
type Inferrer struct {
	root   node
	rows   int64
	fields int
}

type node struct {
	null, boolean, long, double, str bool
	rec                              *record
	items                            *node
	array                            bool
	// wide says that an integer here has more than 53 bits (a double
	// would lose its digits); big, that one is beyond a long, so the
	// place is a decimal of digits digits.
	wide, big bool
	digits    int
	// intDigits and scale are the most digits before and after the point
	// of the numbers here (exponents applied): a place of wide integers
	// and numbers with a fraction is a decimal of that precision and
	// scale, which holds them all exactly.
	intDigits, scale int
	// The strings here: every one a date, a time of day, a timestamp with
	// a zone or one without (times: the fraction's unit; notTemporal: a
	// string that is none of them). A place of only one of these kinds is
	// of its logical type, as DuckDB's read_json_auto makes them DATE,
	// TIME or TIMESTAMP.
	date, zoned, local, clock bool
	notTemporal               bool
	unit                      int8 // 0 millis, 1 micros, 2 nanos
}

// maxMixedPrecision bounds the decimal a place of wide integers and
// numbers with a fraction becomes: Arrow's and Parquet's widest decimal
// (decimal256) holds 76 digits.
const maxMixedPrecision = 76

type record struct {
	objects int64 // the objects seen here
	fields  []*field
	index   map[string]*field // by key
	names   map[string]bool   // the Avro names given
}

type field struct {
	key  string // the JSON key
	name string // its Avro name: the key, or made one (schema.MakeName)
	seen int64  // the objects that had the field
	last int64  // the number of the object that last had it, to count duplicate keys once
	n    node
}

// Add reads one line, a JSON object, into the schema.
func (in *Inferrer) Add(line []byte) error {
	// CheckText takes only valid JSON; checking first keeps a bad line
	// from changing the schema.
	if !json.Valid(line) {
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			return err
		}
		return errors.New("not one JSON value")
	}
	if err := avrojson.CheckText(line); err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	tok, err := d.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return fmt.Errorf("a line of plain JSON to infer a schema from is an object, not %s", tokenKind(tok))
	}
	if err := in.object(d, &in.root, 0); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("text after the object")
		}
		return err
	}
	in.rows++
	return nil
}

// Rows returns the number of lines added.
func (in *Inferrer) Rows() int64 { return in.rows }

func tokenKind(tok json.Token) string {
	switch tok {
	case json.Delim('['):
		return "an array"
	case json.Delim('{'):
		return "an object"
	}
	return jsonKind(tok)
}

// object reads the members of an object, its { read, into n.
func (in *Inferrer) object(d *json.Decoder, n *node, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("nested deeper than %d", maxDepth)
	}
	if n.rec == nil {
		n.rec = &record{index: map[string]*field{}}
	}
	r := n.rec
	r.objects++
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		key := tok.(string) // a JSON object's keys are strings
		f := r.index[key]
		if f == nil {
			if in.fields >= maxFields {
				return fmt.Errorf("more than %d distinct fields: give a schema with --schema (a map, perhaps)", maxFields)
			}
			in.fields++
			f = &field{key: key, name: r.name(key)}
			r.fields = append(r.fields, f)
			r.index[key] = f
		}
		if f.last != r.objects {
			f.last = r.objects
			f.seen++
		}
		if err := in.value(d, &f.n, depth+1); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	_, err := d.Token() // }
	return err
}

// value reads one value into n.
func (in *Inferrer) value(d *json.Decoder, n *node, depth int) error {
	tok, err := d.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case nil:
		n.null = true
	case bool:
		n.boolean = true
	case string:
		n.str = true
		if !n.notTemporal {
			n.temporal(t)
		}
	case json.Number:
		text := string(t)
		if !strings.ContainsAny(text, ".eE") {
			if v, err := strconv.ParseInt(text, 10, 64); err == nil {
				n.long = true
				n.wide = n.wide || v > 1<<53 || v < -(1<<53)
			} else {
				n.big, n.wide = true, true
				n.digits = max(n.digits, len(strings.TrimLeft(strings.TrimPrefix(text, "-"), "0")))
			}
		} else if _, err := strconv.ParseFloat(text, 64); err == nil {
			n.double = true
		} else {
			return fmt.Errorf("%s is beyond a double", t)
		}
		intDigits, scale := numberDigits(text)
		n.intDigits, n.scale = max(n.intDigits, intDigits), max(n.scale, scale)
		if n.double && n.wide && n.intDigits+n.scale > maxMixedPrecision {
			return fmt.Errorf("integers of more than 53 bits and numbers with a fraction or an exponent in one place, which a double would not hold exactly, and a decimal would need %d digits (at most %d): give a schema with --schema (a string, perhaps)", n.intDigits+n.scale, maxMixedPrecision)
		}
	case json.Delim:
		if t == '{' {
			return in.object(d, n, depth)
		}
		if depth > maxDepth {
			return fmt.Errorf("nested deeper than %d", maxDepth)
		}
		n.array = true
		if n.items == nil {
			n.items = &node{}
		}
		for i := 0; d.More(); i++ {
			if err := in.value(d, n.items, depth+1); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		_, err := d.Token() // ]
		return err
	}
	return nil
}

// temporal adds what string s is to n's temporal kinds.
func (n *node) temporal(s string) {
	if len(s) < 8 || len(s) > 40 {
		n.notTemporal = true
		return
	}
	if _, ok := parseTime(schema.LogicalDate, s); ok {
		n.date = true
		return
	}
	kinds := [...]struct {
		logical [3]schema.LogicalType
		flag    *bool
	}{
		{[3]schema.LogicalType{schema.LogicalTimeMillis, schema.LogicalTimeMicros}, &n.clock},
		{[3]schema.LogicalType{schema.LogicalTimestampMillis, schema.LogicalTimestampMicros, schema.LogicalTimestampNanos}, &n.zoned},
		{[3]schema.LogicalType{schema.LogicalLocalTimestampMillis, schema.LogicalLocalTimestampMicros, schema.LogicalLocalTimestampNanos}, &n.local},
	}
	for _, k := range kinds {
		for unit, lt := range k.logical {
			if lt == "" {
				break
			}
			if _, ok := parseTime(lt, s); ok {
				*k.flag = true
				n.unit = max(n.unit, int8(unit))
				return
			}
		}
	}
	n.notTemporal = true
}

// logical returns the logical type of n's strings, or "" when they are
// not all of one temporal kind, or when n holds numbers (a union cannot
// hold a long and a timestamp on a long).
func (n *node) logical() schema.LogicalType {
	kinds := 0
	for _, k := range [...]bool{n.date, n.clock, n.zoned, n.local} {
		if k {
			kinds++
		}
	}
	if n.notTemporal || kinds != 1 || n.long || n.double || n.big {
		return ""
	}
	switch {
	case n.date:
		return schema.LogicalDate
	case n.clock && n.unit == 0:
		return schema.LogicalTimeMillis
	case n.clock:
		return schema.LogicalTimeMicros
	case n.zoned:
		return [...]schema.LogicalType{schema.LogicalTimestampMillis, schema.LogicalTimestampMicros, schema.LogicalTimestampNanos}[n.unit]
	}
	return [...]schema.LogicalType{schema.LogicalLocalTimestampMillis, schema.LogicalLocalTimestampMicros, schema.LogicalLocalTimestampNanos}[n.unit]
}

// name returns the Avro name of a new key of r: the key itself when it
// is a valid Avro name not given yet, else schema.MakeName of it made
// distinct with a suffix (_2, _3...). A key seen later that is itself the
// name made of an earlier one ("a_b" after "a.b") is renamed in its turn,
// so the schema keeps every key (in json.name where renamed).
func (r *record) name(key string) string {
	if r.names == nil {
		r.names = map[string]bool{}
	}
	n := schema.MakeName(key)
	base := n
	for i := 2; r.names[n]; i++ {
		n = base + "_" + strconv.Itoa(i)
	}
	r.names[n] = true
	return n
}

// Schema returns the Avro schema inferred from the lines added, a record
// named Row, its nested records named by their paths (Row_a_b), as JSON
// text indented by two spaces.
func (in *Inferrer) Schema() (string, error) {
	if in.rows == 0 {
		return "", errors.New("no lines to infer a schema from")
	}
	w := &schemaWriter{names: map[string]bool{}}
	w.record(in.root.rec, "Row")
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(w.b.String()), "", "  "); err != nil {
		return "", fmt.Errorf("inferred schema: %w", err)
	}
	out.WriteByte('\n')
	return out.String(), nil
}

type schemaWriter struct {
	b     strings.Builder
	names map[string]bool
}

func (w *schemaWriter) str(s string) {
	b, _ := json.Marshal(s)
	w.b.Write(b)
}

// record writes a record of r named name (made unique).
func (w *schemaWriter) record(r *record, name string) {
	unique := name
	for i := 2; w.names[unique]; i++ {
		unique = name + "_" + strconv.Itoa(i)
	}
	w.names[unique] = true
	w.b.WriteString(`{"type":"record","name":`)
	w.str(unique)
	w.b.WriteString(`,"fields":[`)
	for i, f := range r.fields {
		if i > 0 {
			w.b.WriteByte(',')
		}
		w.b.WriteString(`{"name":`)
		w.str(f.name)
		if f.name != f.key {
			w.b.WriteString(`,"json.name":`)
			w.str(f.key)
		}
		w.b.WriteString(`,"type":`)
		nullable := f.seen < r.objects
		w.node(&f.n, nullable, unique+"_"+f.name)
		if nullable || f.n.null {
			w.b.WriteString(`,"default":null`)
		}
		w.b.WriteByte('}')
	}
	w.b.WriteString(`]}`)
}

// node writes the type of n, with null first if nullable or n held null;
// name names a record there.
func (w *schemaWriter) node(n *node, nullable bool, name string) {
	var branches []func()
	if nullable || n.null {
		branches = append(branches, func() { w.b.WriteString(`"null"`) })
	}
	if n.boolean {
		branches = append(branches, func() { w.b.WriteString(`"boolean"`) })
	}
	if n.double && n.wide {
		// Integers of more than 53 bits beside numbers with a fraction:
		// a decimal that holds every one of them exactly, where a double
		// would round the integers.
		branches = append(branches, func() {
			fmt.Fprintf(&w.b, `{"type":"bytes","logicalType":"decimal","precision":%d,"scale":%d}`, max(n.intDigits+n.scale, 1), n.scale)
		})
	} else if n.double {
		branches = append(branches, func() { w.b.WriteString(`"double"`) })
	} else if n.big {
		// Integers beyond a long: a decimal of scale 0, which keeps
		// every digit (plain JSON reads it from the exact number).
		branches = append(branches, func() {
			fmt.Fprintf(&w.b, `{"type":"bytes","logicalType":"decimal","precision":%d,"scale":0}`, max(n.digits, 19))
		})
	} else if n.long {
		branches = append(branches, func() { w.b.WriteString(`"long"`) })
	}
	if n.str {
		switch lt := n.logical(); lt {
		case "":
			branches = append(branches, func() { w.b.WriteString(`"string"`) })
		case schema.LogicalDate, schema.LogicalTimeMillis:
			branches = append(branches, func() { fmt.Fprintf(&w.b, `{"type":"int","logicalType":%q}`, lt) })
		default:
			branches = append(branches, func() { fmt.Fprintf(&w.b, `{"type":"long","logicalType":%q}`, lt) })
		}
	}
	if n.rec != nil {
		branches = append(branches, func() { w.record(n.rec, name) })
	}
	if n.array {
		branches = append(branches, func() {
			w.b.WriteString(`{"type":"array","items":`)
			w.node(n.items, false, name+"_item")
			w.b.WriteByte('}')
		})
	}
	switch len(branches) {
	case 0:
		w.b.WriteString(`"null"`) // only empty arrays' items: nothing seen
	case 1:
		branches[0]()
	default:
		w.b.WriteByte('[')
		for i, b := range branches {
			if i > 0 {
				w.b.WriteByte(',')
			}
			b()
		}
		w.b.WriteByte(']')
	}
}

// numberDigits returns the digits of a JSON number before its point and
// after it, its exponent applied (1.25e1: 2 and 1; 5e-3: 0 and 3), without
// leading zeros before the point or trailing zeros after it.
func numberDigits(text string) (intDigits, scale int) {
	text = strings.TrimPrefix(text, "-")
	exp := 0
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(text[i+1:], "+"))
		if err != nil || e > maxMixedPrecision+1 || e < -maxMixedPrecision-1 {
			// Too far either way for any decimal we would make.
			return maxMixedPrecision + 1, 0
		}
		exp, text = e, text[:i]
	}
	whole, frac, _ := strings.Cut(text, ".")
	frac = strings.TrimRight(frac, "0")
	digits := strings.TrimLeft(whole+frac, "0")
	point := len(whole) + exp // where the point falls in whole+frac
	total := len(whole + frac)
	lead := total - len(digits) // leading zeros
	intDigits = max(point-lead, 0)
	scale = max(total-point, 0)
	if len(digits) == 0 {
		return 0, 0
	}
	return intDigits, scale
}
