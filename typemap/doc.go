// Package typemap converts Avro values between the "native" Go form of
// github.com/linkedin/goavro/v2 and the Go values stored in Trevni
// columns, and resolves goavro's union values.
//
// Which column an Avro type is stored in is decided by package
// schema/layout, not here: a Trevni file written from Avro stores every
// simple Avro value (a primitive, an enum or a fixed) in one column, of
// the type layout.ColumnType gives, the column types of Java's
// trevni-avro, so that Java reads the files. This package converts the
// values that go into and come out of those columns. Logical types are
// stored as their underlying type, byte for byte what Avro's binary
// encoding holds, so nothing is lost. The table's "column" entries are
// layout.ColumnType's, for reference:
//
//	Avro type   logical type            goavro native value          column   stored Go value
//	---------   ------------            -------------------          ------   ---------------
//	null                                nil                          null     nil
//	boolean                             bool                         boolean  bool
//	int                                 int32                        int      int32
//	int         date                    time.Time, 00:00 UTC         int      int32: days since 1970-01-01
//	int         time-millis             time.Duration                int      int32: milliseconds
//	long                                int64                        long     int64
//	long        time-micros             time.Duration                long     int64: microseconds
//	long        timestamp-millis        time.Time, UTC               long     int64: ms since the Unix epoch
//	long        timestamp-micros        time.Time, UTC               long     int64: µs since the Unix epoch
//	long        timestamp-nanos,        int64 (goavro does not       long     int64
//	            local-timestamp-*       convert these)
//	float                               float32                      float    float32
//	double                              float64                      double   float64
//	bytes                               []byte                       bytes    []byte
//	bytes       decimal                 *big.Rat                     bytes    []byte: unscaled value, big-endian
//	                                                                          two's complement, shortest form
//	bytes       big-decimal             []byte                       bytes    []byte
//	string                              string                       string   string
//	string      uuid                    string                       string   string
//	enum                                string (the symbol)          int      int32: the symbol's ordinal
//	fixed                               []byte of the fixed size     bytes    []byte (Trevni stores the length)
//	fixed       decimal                 *big.Rat                     bytes    []byte: unscaled value, two's
//	                                                                          complement on the fixed size
//	fixed       duration, uuid          []byte                       bytes    []byte
//
// Records, arrays, maps and unions are not stored as values but as several
// columns, which package schema/layout lays out. Their goavro forms are map[string]any
// (records: field name to value), []any, map[string]any, and for a union
// nil (the null branch) or a map[string]any with one entry whose key names
// the branch ([UnionKey]).
//
// [ToStored] accepts what goavro's encoder accepts for each type (for
// example any Go integer or an exactly representable float for an int) and
// gives the same value goavro would encode, with two differences: where
// goavro would silently wrap or zero a value that does not fit (a
// time-millis of more than 2^31 ms, a timestamp out of the int64 range, a
// decimal too large for its fixed), ToStored returns an error; and it
// encodes a zero decimal in a fixed of size more than 1 (which goavro
// cannot). As goavro does, it rounds a decimal toward negative infinity to
// its scale, and truncates a date toward zero to whole days.
//
// [FromStored] returns exactly what goavro's decoder returns for the same
// Avro bytes, so converting a goavro-decoded value to its stored form and
// back gives an equal value.
package typemap
