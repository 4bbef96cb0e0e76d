package main

import "strings"

// sqlString quotes s as an SQL string literal, for the queries the tests
// run in DuckDB (internal/testing/ducktest).
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
