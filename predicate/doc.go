// Package predicate parses the filter expressions of "--where" and
// evaluates them on records and on block statistics.
//
// # Grammar
//
//	expr       = or
//	or         = and { "OR" and }
//	and        = unary { "AND" unary }
//	unary      = "NOT" unary | "(" expr ")" | predicate
//	predicate  = path op literal
//	           | path ["NOT"] "IN" "(" literal { "," literal } ")"
//	           | path "IS" ["NOT"] "NULL"
//	           | path "IS" ["NOT"] "NAN"
//	           | path "STARTS" "WITH" literal
//	           | path ["NOT"] "LIKE" literal
//	op         = "=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">="
//	path       = name { "[" "'" key "'" "]" } { "." name { "[" "'" key "'" "]" } }
//	name       = [A-Za-z_][A-Za-z0-9_]*  |  '"' text '"'  |  '`' text '`'
//	literal    = "'" text "'" | number | "TRUE" | "FALSE" | "NaN"
//	           | ["-" | "+"] "Infinity" | "X'" hex digits "'"
//
// Keywords are case-insensitive. A quote inside quoted text is written
// twice, and a field named like a keyword is quoted:
//
//	note = 'it''s' AND "in" = 3
//
// A path names a field by its Avro field names, dots going through
// records. Arrays, maps and unions on the way are passed through: a path
// into an array's items means "any element" (lines.qty > 4 holds when some
// line's qty does), likewise for a map's values, and a path through a union
// follows every branch that has the field. A path may also end at a record,
// for IS NULL and IS NOT NULL only. A name followed by ['key'] takes that
// key's value of the map the field holds (through a union): a missing key
// is NULL, so attrs['k'] = 'v' is UNKNOWN where attrs has no key k. Keys
// follow one another into maps of maps (m['a']['b'], NULL where either is
// missing), a path goes on after a key into the value's record
// (m['k'].x), and a key after a field holding an array of maps looks it
// up in each element (any element, as for other paths into arrays).
//
// Literals are converted to the type of the field they are compared with,
// or the expression is an error:
//   - int, long, float, double: a number (an integer or a decimal with an
//     optional exponent), NaN or Infinity; integers and floats compare
//     exactly (id = 7.5 is false for every int);
//   - dates, times and timestamps: their number as Avro JSON writes it
//     (days, milliseconds, microseconds, nanoseconds), or text: a date
//     '2024-05-01', a time '12:30:00.250', a timestamp in RFC 3339
//     '2024-05-01T12:00:00Z' (a local timestamp without the zone); text
//     finer than the field's unit is an error;
//   - string: a 'string', compared as UTF-8 bytes (code point order);
//   - enum: a 'SYMBOL' of the enum; enums order by the symbols' positions;
//   - bytes and fixed: a 'string' of characters U+0000 to U+00FF (one per
//     byte, as Avro JSON writes bytes) or X'hex', compared as unsigned
//     bytes;
//   - decimal: a number, compared by value;
//   - boolean: TRUE or FALSE (FALSE < TRUE);
//   - a protobuf enum, an int whose field has the "protobuf.enum" property
//     of package protoschema: a 'NAME' of the enum or its number; names
//     compare as their numbers;
//   - a protobuf google.protobuf.Timestamp or Duration message (a record
//     with that "protobuf.message" property, fields seconds and nanos),
//     reached without an array or map on the way: a Timestamp as RFC 3339
//     text, a Duration as protobuf JSON's seconds ('-1.5s', to the
//     nanosecond) or a Go duration ('1h30m'); compared by value with =, !=,
//     <, <=, >, >= and IN, as the pair (seconds, nanos).
//
// IS NAN applies to float and double fields; STARTS WITH and LIKE to
// string, bytes and fixed fields, with a literal as for =. In a LIKE
// pattern % stands for any run of characters and _ for one character (a
// UTF-8 sequence, or a byte that is not part of one); there is no escape.
// x IS NOT NAN is NOT (x IS NAN) and x NOT LIKE p is NOT (x LIKE p), so on
// a null they are UNKNOWN. NAN, STARTS, WITH and LIKE are keywords only
// where an operator is expected.
//
// A field name that a record lacks is an error that names the record's
// field equal to it but for case, or else the one nearest within two
// edits: "did you mean amount?".
//
// # Meaning
//
// Evaluation follows SQL's three-valued logic. A comparison on a field
// whose value is null (a null union branch, or a branch without the field
// on the way) is UNKNOWN; NOT UNKNOWN is UNKNOWN; FALSE AND UNKNOWN is
// FALSE; TRUE OR UNKNOWN is TRUE; a record matches only when the whole
// expression is TRUE. Where a path reaches several values (through arrays
// or maps), a comparison is TRUE if it is TRUE for one of them, else
// UNKNOWN if one of them is null, else FALSE (also when there is none).
// x NOT IN (...) is NOT (x IN (...)). x IS NULL is TRUE when a value
// reached is null, x IS NOT NULL when a value reached is not; neither is
// ever UNKNOWN. Floats compare as IEEE 754 does: NaN is unequal to
// everything (NaN != NaN is TRUE) and neither less nor greater than
// anything; -0 equals +0.
//
// # Statistics
//
// MayMatch judges a run of rows from per-block statistics (package
// format/stats) of the columns the expression reads (Columns). It computes,
// for every sub-expression, whether some row of the run could make it TRUE
// and whether one could make it FALSE, from the bounds and counts of the
// blocks; NOT swaps the two, so negations are as safe as the rest. It
// answers false only when no row can make the expression TRUE: a column
// without statistics, a bytes decimal, and a fixed decimal whose bounds
// are inexact or of two signs, count as "any value"; a shortened
// string bound is used only as the bound it still is; a block holding NaN
// may satisfy != and may fail every other comparison, and IS NAN is judged
// by the block's NaN flag; STARTS WITH, and LIKE by its pattern's text
// before the first wildcard, skip a block whose bounds cannot hold a value
// with that prefix; null counts come
// into play only when the statistics cover exactly the rows asked about.
// A map lookup is judged by the statistics of the map's values (all keys'),
// which bound the value of any one key.
//
// AllMatch judges the other way: it is true only when the statistics prove
// the expression TRUE on every row of the run, so that a reader may take
// the rows without evaluating it. Besides TRUE and FALSE it tracks whether
// a row could be UNKNOWN, which does not match: a comparison is proven only
// where the value counts show a value in every row (no NULL), AND where
// both sides are proven, OR where one is (TRUE OR UNKNOWN is TRUE), NOT
// where its operand is proven FALSE; a block holding NaN proves no
// comparison but !=; IN only where every value equals one literal; a path
// through an array is proven only for a top-level array of simple values
// whose every element compares true and whose arrays are all non-empty;
// map lookups and other paths through arrays or maps never are.
//
// Ranges applies MayMatch to a whole file's blocks and returns the runs of
// rows a reader must read; Runs also marks those that AllMatch proves. Bound to a reader schema (BindWith with
// BindOptions.FileColumn), a field the reader schema adds, or whose values
// are converted on reading, has no statistics: every block may match.
package predicate
