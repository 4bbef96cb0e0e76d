package trevni_test

// The tests read http(s) URLs, which needs the client package
// remote/httpread links (a program that imports only the root reads none:
// TestConsumerProgram in internal/layers).
import _ "github.com/trevni-go/trevni/remote/httpread"
