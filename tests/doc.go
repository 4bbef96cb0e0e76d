// Package tests is the module of the tests that need modules a library
// user should not have in their build list: the OpenTelemetry protocol's
// generated types (go.opentelemetry.io/proto/otlp, a deep real-world
// message for the protobuf tests) and parquet-go (an independent Parquet
// writer, whose files tests/trevniparquet reads with trevniparquet). Its
// directories mirror the core's packages whose tests they hold
// (tests/assemble for assemble, tests/trevni for the root package); each test package imports the core's packages as
// a user does. The module requires the core through a replace directive to
// this checkout, and go.work joins it, so `go test ./tests/...` runs from
// the root.
package tests
