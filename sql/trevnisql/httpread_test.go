package trevnisql

// The tests read http:// URLs: a program links the reader of such URLs
// (cmd/trevni-sql does, in its stores.go).
import _ "github.com/trevni-go/trevni/remote/httpread"
