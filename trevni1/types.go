package trevni1

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/trevni-go/trevni/format"
)

// Magic is the four bytes every version-1 file starts with.
const Magic = "Trv\x01"

// Type is the type of a column's values.
type Type uint8

// The column types. Impala wrote Boolean, Fixed8, Fixed16, Int, Long,
// Float, Double, Timestamp and String; its scanner also read Fixed32,
// Fixed64 and Bytes. Null (no bytes per value) is the wiki's.
const (
	Null Type = iota
	Boolean
	Fixed8
	Fixed16
	Int
	Long
	Fixed32
	Fixed64
	Float
	Double
	Timestamp
	String
	Bytes
	numTypes
)

var typeNames = [numTypes]string{"null", "boolean", "fixed8", "fixed16", "int", "long", "fixed32", "fixed64",
	"float", "double", "timestamp", "string", "bytes"}

// String returns the type's name as stored in trevni.type.
func (t Type) String() string {
	if t < numTypes {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// ParseType returns the type a trevni.type value names.
func ParseType(name string) (Type, error) {
	for i, n := range typeNames {
		if n == name {
			return Type(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown type %q", ErrFormat, name)
}

// width returns the bytes of a fixed-width value, 0 for the others.
func (t Type) width() int {
	switch t {
	case Fixed8:
		return 1
	case Fixed16:
		return 2
	case Fixed32, Float:
		return 4
	case Fixed64, Double:
		return 8
	case Timestamp:
		return 12
	}
	return 0
}

// isInteger reports whether the type's values are integers.
func (t Type) isInteger() bool {
	switch t {
	case Fixed8, Fixed16, Int, Long, Fixed32, Fixed64:
		return true
	}
	return false
}

// intRange returns the values an integer type holds.
func (t Type) intRange() (lo, hi int64) {
	switch t {
	case Fixed8:
		return -1 << 7, 1<<7 - 1
	case Fixed16:
		return -1 << 15, 1<<15 - 1
	case Int, Fixed32:
		return -1 << 31, 1<<31 - 1
	}
	return -1 << 63, 1<<63 - 1
}

// TimestampValue is Impala's 12-byte timestamp: bytes 0-7 the nanoseconds
// since midnight (int64, little-endian), bytes 8-11 the Julian Day Number
// of the date (uint32, little-endian; 1970-01-01 is 2440588). Every bit
// pattern is kept, boost's special values included.
type TimestampValue struct {
	NanosOfDay int64
	JulianDay  uint32
}

// levelBits returns the bits per entry of a level array for a maximum
// level: the number of significant bits (Impala's IntegerSize).
func levelBits(max int) int { return bits.Len(uint(max)) }

// Errors wrapped by this package's errors.
var (
	// ErrFormat: the file is not a well-formed version-1 Trevni file. It
	// is a kind of format.ErrFormat, so that one test finds a damaged file
	// of either version.
	ErrFormat = format.KindOf(format.ErrFormat, "trevni1: malformed file")
	// ErrCodec: an unknown codec or checksum name.
	ErrCodec = errors.New("trevni1: unknown codec")
	// ErrUsage: the caller misused the API.
	ErrUsage = errors.New("trevni1: misuse")
	// ErrChecksum: a block's checksum does not match its data. It is a
	// kind of format.ErrChecksum (and so of ErrFormat and
	// format.ErrFormat).
	ErrChecksum = format.KindOf(format.ErrChecksum, "trevni1: checksum mismatch")
	// ErrImpalaBoolean: a boolean block lost bits to Impala's boolean size
	// bug (see ReaderOptions.ImpalaBooleans).
	ErrImpalaBoolean = errors.New("trevni1: boolean values lost by Impala's writer")
	// ErrLimit reports a file that needs more than a configured limit
	// allows (ReaderOptions.MaxBlockSize, ReaderOptions.BlockMemory). It
	// is format.ErrLimit, so one test covers both versions.
	ErrLimit = format.ErrLimit
)

// Error locates a problem in a file: the column (-1 for the header), the
// block (-1 if none), the row within the column (-1 if unknown) and the
// file offset (-1 if unknown).
type Error struct {
	Column int
	Name   string
	Block  int
	Row    int64
	Offset int64
	Err    error
}

// Error returns the problem with its place.
func (e *Error) Error() string {
	s := "trevni1: "
	if e.Column >= 0 {
		s += fmt.Sprintf("column %q (#%d), ", e.Name, e.Column)
	} else {
		s += "header, "
	}
	if e.Block >= 0 {
		s += fmt.Sprintf("block %d, ", e.Block)
	}
	if e.Row >= 0 {
		s += fmt.Sprintf("row %d, ", e.Row)
	}
	if e.Offset >= 0 {
		s += fmt.Sprintf("offset %d, ", e.Offset)
	}
	return s[:len(s)-2] + ": " + strings.TrimPrefix(e.Err.Error(), "trevni1: ")
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Meta is an ordered list of metadata entries, as stored.
type Meta struct {
	Keys   []string
	Values [][]byte
}

// Get returns the value of key and whether it is present.
func (m *Meta) Get(key string) ([]byte, bool) {
	for i, k := range m.Keys {
		if k == key {
			return m.Values[i], true
		}
	}
	return nil, false
}

// GetString returns the value of key as a string, "" if absent.
func (m *Meta) GetString(key string) string {
	v, _ := m.Get(key)
	return string(v)
}

// Add appends an entry.
func (m *Meta) Add(key string, value []byte) {
	m.Keys = append(m.Keys, key)
	m.Values = append(m.Values, value)
}

// Len returns the number of entries.
func (m *Meta) Len() int { return len(m.Keys) }

// Metadata keys.
const (
	KeyCodec      = "trevni.codec"
	KeyChecksum   = "trevni.checksum"
	KeyName       = "trevni.name"
	KeyType       = "trevni.type"
	KeyDefinition = "trevni.definition"
	KeyRepetition = "trevni.repetition"
	KeyParent     = "trevni.parent"
	KeyValues     = "trevni.values"
	KeyArray      = "trevni.array"
	// KeyAvroSchema holds the Avro schema of a file written from Avro.
	KeyAvroSchema = "avro.schema"
)

// ChecksumCRC32 is the checksum name Impala's scanner accepted (the 0.1
// specification's spelling); "crc32" is read as the same.
const ChecksumCRC32 = "crc-32"

// Column describes one column of a file.
type Column struct {
	Name string
	Type Type
	// MaxDef and MaxRep are the column's maximum definition and
	// repetition levels (trevni.definition, trevni.repetition).
	MaxDef, MaxRep int
	// Codec is the column's effective codec ("" for none) and Checksum its
	// effective checksum ("" for none).
	Codec, Checksum string
	// Meta holds every entry of the column's metadata as stored.
	Meta Meta
}
