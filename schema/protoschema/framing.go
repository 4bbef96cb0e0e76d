package protoschema

import "strconv"

// Framing is how a stream of protobuf messages separates them: the form
// shred.FromProtoStream reads and assemble.ToProtoStream writes.
type Framing int

const (
	// Delimited: binary messages, each preceded by its length as a
	// varint (protodelim, Java's writeDelimitedTo).
	Delimited Framing = iota
	// JSONLines: one protojson message per line.
	JSONLines
)

// String returns the framing's name.
func (f Framing) String() string {
	switch f {
	case Delimited:
		return "delimited"
	case JSONLines:
		return "JSON lines"
	}
	return "Framing(" + strconv.Itoa(int(f)) + ")"
}
