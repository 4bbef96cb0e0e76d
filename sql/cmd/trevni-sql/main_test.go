package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// testdata is the root module's sample data.
func testdata(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "..", "testdata"}, parts...)...)
}

// runCmd runs the command and returns its exit status, standard output
// and standard error.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr, false)
	return code, stdout.String(), stderr.String()
}

func TestFormats(t *testing.T) {
	prims := testdata("interop", "primitives", "primitives.deflate.crc32.trv")
	expected, err := os.ReadFile(testdata("interop", "primitives", "expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	trues := strings.Count(string(expected), `"b":true`)
	falses := strings.Count(string(expected), `"b":false`)
	if trues+falses != 500 {
		t.Fatalf("expected.jsonl: %d true and %d false of 500", trues, falses)
	}
	q := "SELECT b, count(*) AS n FROM p GROUP BY b ORDER BY b"
	for _, c := range []struct{ format, want string }{
		{"csv", "b,n\nfalse," + itoa(falses) + "\ntrue," + itoa(trues) + "\n"},
		{"json", `{"b":false,"n":` + itoa(falses) + "}\n" + `{"b":true,"n":` + itoa(trues) + "}\n"},
		{"table", "b      n\n-----  ---\nfalse  " + itoa(falses) + "\ntrue   " + itoa(trues) + "\n(2 rows)\n"},
	} {
		code, out, errs := runCmd(t, "--table", "p="+prims, "--format", c.format, q)
		if code != 0 || out != c.want {
			t.Errorf("--format %s: status %d, stderr %q, output\n%s\nwant\n%s", c.format, code, errs, out, c.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestJoinCSV joins a CLMN data set with the CSV file it was made from:
// every row finds itself.
func TestJoinCSV(t *testing.T) {
	q := "SELECT count(*) AS n, sum(t.age) = sum(c.age) AS same FROM '" + testdata("clmn", "sample.clmn") + "' t JOIN '" + testdata("clmn", "sample.csv") + "' c ON t.id = c.id AND t.name = c.name AND t.email = c.email AND t.salary = c.salary"
	code, out, errs := runCmd(t, "--format", "csv", q)
	if code != 0 || out != "n,same\n1000,true\n" {
		t.Errorf("status %d, stderr %q, output %q", code, errs, out)
	}
}

// TestReport checks that only the columns a query names are read.
func TestReport(t *testing.T) {
	code, _, errs := runCmd(t, "--report", "--format", "csv", "SELECT max(s), min(i) FROM '"+testdata("interop", "primitives", "primitives.null.none.trv")+"'")
	if code != 0 {
		t.Fatalf("status %d: %s", code, errs)
	}
	var cols []string
	for _, l := range strings.Split(errs, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "column" {
			cols = append(cols, f[1])
		}
	}
	if strings.Join(cols, ",") != "i,s" && strings.Join(cols, ",") != "s,i" {
		t.Errorf("columns read %v, want i and s; report:\n%s", cols, errs)
	}
}

// TestCopyToParquet writes a query's result with DuckDB's COPY and reads
// it back.
func TestCopyToParquet(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.parquet")
	src := testdata("interop", "nested_records", "nested_records.snappy.crc32.trv")
	if code, _, errs := runCmd(t, "COPY (SELECT * FROM '"+src+"') TO '"+out+"' (FORMAT parquet)"); code != 0 {
		t.Fatalf("COPY: %s", errs)
	}
	code, got, errs := runCmd(t, "--format", "csv", "SELECT (SELECT count(*) FROM '"+out+"') AS n, (SELECT count(*) FROM (SELECT * FROM '"+out+"' EXCEPT SELECT * FROM '"+src+"')) AS differ")
	if code != 0 || got != "n,differ\n300,0\n" {
		t.Errorf("status %d, stderr %q, output %q", code, errs, got)
	}
}

// TestErrors checks that each failure is one line naming the source, with
// exit status 1.
func TestErrors(t *testing.T) {
	prims := testdata("interop", "primitives", "primitives.deflate.crc32.trv")
	b, err := os.ReadFile(prims)
	if err != nil {
		t.Fatal(err)
	}
	// A damaged block: its checksum no longer matches.
	bad := filepath.Join(t.TempDir(), "damaged.trv")
	d := bytes.Clone(b)
	for i := len(d) - 400; i < len(d)-300; i++ {
		d[i] ^= 0x5a
	}
	if err := os.WriteFile(bad, d, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want []string // in the one line
	}{
		{"missing file", []string{"SELECT * FROM 'no/such/file.trv'"}, []string{"no/such/file.trv"}},
		{"missing table source", []string{"--table", "t=no/such/dir", "SELECT * FROM t"}, []string{"no/such/dir"}},
		{"missing field", []string{"SELECT nosuchfield FROM '" + prims + "'"}, []string{"nosuchfield", prims}},
		{"bad SQL", []string{"SELEKT 1"}, []string{"syntax error"}},
		{"damaged file", []string{"SELECT * FROM '" + bad + "'"}, []string{"read_trevni(", bad, `column "by"`}},
		// Only a bytes column: read by the direct path.
		{"damaged file, one column", []string{`SELECT max(octet_length("by")) FROM '` + bad + "'"}, []string{"read_trevni(", bad, "column by", "block 0"}},
		{"block memory, direct path", []string{"--block-memory", "1KiB", "SELECT max(s) FROM '" + prims + "'"}, []string{prims, "the 1024 bytes of --block-memory"}},
		{"block memory, Arrow path", []string{"--block-memory", "1KiB", "SELECT * FROM '" + prims + "'"}, []string{prims, "the 1024 bytes of --block-memory"}},
		{"record too large", []string{"--max-record-size", "8", "SELECT * FROM '" + prims + "'"}, []string{prims}},
	} {
		code, out, errs := runCmd(t, c.args...)
		lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
		if code != 1 || out != "" || len(lines) != 1 || !strings.HasPrefix(errs, "trevni-sql: ") {
			t.Errorf("%s: status %d, output %q, stderr %q: want status 1 and one line", c.name, code, out, errs)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: %q does not say %q", c.name, errs, w)
			}
		}
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"--format", "xml", "SELECT 1"}, {"--table", "noequals", "SELECT 1"}, {"--block-memory", "lots", "SELECT 1"}} {
		if code, _, _ := runCmd(t, args...); code != 2 {
			t.Errorf("%q: status %d, want 2", args, code)
		}
	}
}
