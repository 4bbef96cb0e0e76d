package format

import (
	"strconv"
	"strings"
)

// Reserved metadata keys. Keys starting with "trevni." are reserved for the
// format itself.
const (
	KeyCodec    = "trevni.codec"    // file default or column override: the block codec
	KeyChecksum = "trevni.checksum" // file default or column override: the block checksum
	KeyName     = "trevni.name"     // column: its name
	KeyType     = "trevni.type"     // column: its value type
	KeyValues   = "trevni.values"   // column: first values are stored in block descriptors
	KeyParent   = "trevni.parent"   // column: the name of its parent column
	KeyArray    = "trevni.array"    // column: each row holds a length and that many values
)

// ReservedPrefix starts every key reserved for the format.
const ReservedPrefix = "trevni."

// IsReserved reports whether key is reserved for the format.
func IsReserved(key string) bool { return strings.HasPrefix(key, ReservedPrefix) }

// MetaData is an ordered list of key/value pairs, as stored for the file and
// for each column. Values are bytes; keys are unique. The zero value is an
// empty list ready to use. Entries keep the order in which they were first
// set, which is the order they are written in.
type MetaData struct {
	keys   []string
	values [][]byte
}

// Len returns the number of entries.
func (m *MetaData) Len() int { return len(m.keys) }

// Key returns the key of entry i.
func (m *MetaData) Key(i int) string { return m.keys[i] }

// Value returns the value of entry i.
func (m *MetaData) Value(i int) []byte { return m.values[i] }

// Get returns the value for key and whether it is present.
func (m *MetaData) Get(key string) ([]byte, bool) {
	for i, k := range m.keys {
		if k == key {
			return m.values[i], true
		}
	}
	return nil, false
}

// GetString returns the value for key as a string, or "" if absent.
func (m *MetaData) GetString(key string) string {
	v, _ := m.Get(key)
	return string(v)
}

// Has reports whether key is present. As in Java, a boolean flag such as
// trevni.array is true whenever its key is present, whatever its value.
func (m *MetaData) Has(key string) bool {
	_, ok := m.Get(key)
	return ok
}

// Set sets key to value, keeping the key's position if it is already present
// and appending it otherwise. The value is not copied.
func (m *MetaData) Set(key string, value []byte) {
	for i, k := range m.keys {
		if k == key {
			m.values[i] = value
			return
		}
	}
	m.keys = append(m.keys, key)
	m.values = append(m.values, value)
}

// SetString sets key to the UTF-8 bytes of value.
func (m *MetaData) SetString(key, value string) { m.Set(key, []byte(value)) }

// Delete removes key if present.
func (m *MetaData) Delete(key string) {
	for i, k := range m.keys {
		if k == key {
			m.keys = append(m.keys[:i], m.keys[i+1:]...)
			m.values = append(m.values[:i], m.values[i+1:]...)
			return
		}
	}
}

// Clone returns a copy of m whose entry list can be changed independently.
func (m *MetaData) Clone() MetaData {
	return MetaData{keys: append([]string(nil), m.keys...), values: append([][]byte(nil), m.values...)}
}

// ColumnMeta describes one column.
type ColumnMeta struct {
	// Name is the column's unique name (trevni.name).
	Name string
	// Type is the type of the column's values (trevni.type).
	Type ValueType
	// Array marks a column that stores, per row or per parent element, a
	// length followed by that many values (trevni.array).
	Array bool
	// Parent names the array column this column is nested in, or is empty
	// for a top-level column (trevni.parent). A parent precedes its
	// children in the file.
	Parent string
	// Values asks for the first value of every block to be stored in its
	// descriptor, which allows seeking by value (trevni.values). Only for
	// top-level, non-array columns.
	Values bool
	// Meta holds the column's other metadata in order: per-column
	// trevni.codec and trevni.checksum overrides and user entries.
	Meta MetaData
}

// Codec returns the column's codec override, or "" to use the file's.
func (c *ColumnMeta) Codec() string { return c.Meta.GetString(KeyCodec) }

// Checksum returns the column's checksum override, or "" to use the file's.
func (c *ColumnMeta) Checksum() string { return c.Meta.GetString(KeyChecksum) }

// String formats the entries as {key: value, ...}, for messages.
func (m *MetaData) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range m.keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(k) + ": " + strconv.Quote(string(m.values[i])))
	}
	b.WriteByte('}')
	return b.String()
}
