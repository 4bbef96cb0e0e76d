package layers

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// What a Go program that reads a local Trevni file through the front door
// (the root package) may link, and its cost (issue 34): no cloud SDK, no
// gRPC, no OpenTelemetry, no object store driver, no .proto compiler.
//
// The bounds are the goals. What such a program links is the
// formats, their codecs and goavro: a program links net/http by importing
// remote/httpread (to read http(s) URLs), and the protobuf runtime's
// descriptor and JSON packages by importing schema/protoload (to read or
// write protobuf). On linux/amd64 with Go 1.26: 86 packages, 8.3 MB, 5.1
// MiB resident (with net/http about 5 MB and 4 MiB more; with the
// descriptor packages too, 2.2 MB and 1.2 MiB more again).
const (
	consumerMaxPackages = 120      // non-standard packages linked (86 now)
	consumerMaxBinary   = 12 << 20 // bytes of the binary, as go build makes it (8.3 MB now)
	consumerMaxRSS      = 10 << 20 // bytes resident at the start of main, on Linux (5.1 MiB now)
)

// consumerFree lists the import path prefixes the consumer links none of.
var consumerFree = []string{
	"gocloud.dev", "cloud.google.com", "google.golang.org/api", "google.golang.org/grpc",
	"go.opentelemetry.io", "github.com/aws", "github.com/Azure", "golang.org/x/oauth2",
	"github.com/bufbuild/protocompile", "github.com/trevni-go/trevni/stores",
	// The protobuf runtime's descriptor and JSON packages: only a program
	// that imports schema/protoload, to read or write protobuf, links them.
	"google.golang.org/protobuf/types/descriptorpb", "google.golang.org/protobuf/reflect/protodesc",
	"google.golang.org/protobuf/encoding/protojson", "github.com/trevni-go/trevni/schema/protoload",
	// net/http: only a program that imports remote/httpread, to read
	// http(s) URLs, links it.
	"net/http", "github.com/trevni-go/trevni/remote/httpread",
	"github.com/johannesboyne/gofakes3", "github.com/fsouza/fake-gcs-server",
}

// consumerModulesFree lists modules that must not be in the consumer's
// build list (go list -m all) at all: the test servers, the command's
// terminal module, the cloud SDKs and gocloud.dev, which, listed in the
// core's go.mod, raised the versions of a user's modules by MVS.
var consumerModulesFree = []string{
	"github.com/johannesboyne/gofakes3", "github.com/fsouza/fake-gcs-server", "golang.org/x/term",
	"gocloud.dev", "github.com/aws/aws-sdk-go-v2", "github.com/Azure/azure-sdk-for-go/sdk/azcore",
	"cloud.google.com/go/storage", "golang.org/x/oauth2",
	// OTLP's generated types, for the protobuf tests: in the module tests/.
	"go.opentelemetry.io/proto/otlp",
}

// consumerMain reads a Trevni file named by its first argument and prints
// the resident memory at the start of main (VmRSS of /proc/self/status, in
// kB; 0 elsewhere) and the records read. Given two more, it then asks for
// the messages of a file written from protobuf, named by the second, and
// opens the http URL of the third, and prints the two errors, a line each:
// the program imports neither schema/protoload nor remote/httpread, so
// both fail. One program for both checks: one link, not two.
const consumerMain = `package main

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/trevni-go/trevni"
)

func main() {
	rss := "0"
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range bytes.Split(b, []byte("\n")) {
			if f := bytes.Fields(l); len(f) >= 2 && string(f[0]) == "VmRSS:" {
				rss = string(f[1])
			}
		}
	}
	ds, err := trevni.Open(context.Background(), os.Args[1], nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	n := 0
	for _, err := range ds.All(context.Background(), nil) {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		n++
	}
	fmt.Println(rss, n)
	if len(os.Args) < 4 {
		return
	}
	ds, err = trevni.Open(context.Background(), os.Args[2], nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, err := range ds.Messages(context.Background(), nil) {
		fmt.Println(err)
		break
	}
	_, err = trevni.Open(context.Background(), os.Args[3], nil)
	fmt.Println(err)
}
`

// TestConsumerProgram makes a consumer module in a temporary directory
// (its go.mod requires the core module, replaced by this checkout), and
// checks with go list -deps, go list -m all and a build what a program that
// reads a local file through the root package links, its build list, the
// size of its binary and its memory at the start of main; and that the
// core module's go line is no newer than its dependencies need.
func TestConsumerProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program: not with -short")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.com/consumer\n\ngo 1.26.0\n\nrequire github.com/trevni-go/trevni v0.0.0\n\nreplace github.com/trevni-go/trevni => " + root + "\n"
	for name, text := range map[string]string{"go.mod": gomod, "main.go": consumerMain} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// go.sum: the core's, which holds every module the consumer needs.
	if b, err := os.ReadFile(filepath.Join(root, "go.sum")); err == nil {
		if err := os.WriteFile(filepath.Join(dir, "go.sum"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		out, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr)
		}
		return string(out)
	}

	var deps, nonStd []string
	for _, l := range strings.Split(strings.TrimSpace(run("list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", ".")), "\n") {
		p, std, _ := strings.Cut(l, " ")
		if p == "example.com/consumer" {
			continue
		}
		deps = append(deps, p)
		if std != "true" {
			nonStd = append(nonStd, p)
		}
	}
	t.Logf("the consumer links %d non-standard packages", len(nonStd))
	if !slices.Contains(nonStd, module) {
		t.Fatalf("go list -deps lists no %s: %q", module, nonStd)
	}
	if len(nonStd) > consumerMaxPackages {
		t.Errorf("the consumer links %d non-standard packages, more than %d", len(nonStd), consumerMaxPackages)
	}
	for _, p := range deps {
		for _, c := range consumerFree {
			if hasPrefixPath(p, c) {
				t.Errorf("the consumer links %s", p)
			}
		}
	}

	mods := strings.Fields(run("list", "-m", "-f", "{{.Path}}", "all"))
	t.Logf("the consumer's build list holds %d modules", len(mods))
	for _, m := range mods {
		if slices.Contains(consumerModulesFree, m) {
			t.Errorf("the consumer's build list (go list -m all) holds %s", m)
		}
	}

	bin := filepath.Join(dir, "consumer")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	run("build", "-o", bin, ".")
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the consumer's binary: %d bytes", fi.Size())
	if fi.Size() > consumerMaxBinary {
		t.Errorf("the consumer's binary is %d bytes, more than %d", fi.Size(), consumerMaxBinary)
	}
	out, err := exec.Command(bin, filepath.Join(root, "testdata", "interop", "nested_records", "nested_records.snappy.crc32.trv"),
		filepath.Join(root, "testdata", "proto", "legacy", "trevni.test.p3.Tree.trv"), "http://127.0.0.1:1/x.trv").Output()
	if err != nil {
		t.Fatalf("the consumer: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		t.Fatalf("the consumer printed %q, want three lines", out)
	}
	f := strings.Fields(lines[0])
	if len(f) != 2 || f[1] == "0" {
		t.Fatalf("the consumer printed %q", out)
	}
	if kb, err := strconv.ParseInt(f[0], 10, 64); err != nil {
		t.Fatalf("the consumer printed %q", out)
	} else if kb > 0 {
		t.Logf("the consumer: %d kB resident at the start of main, %s records", kb, f[1])
		if kb<<10 > consumerMaxRSS {
			t.Errorf("the consumer holds %d kB at the start of main, more than %d", kb, consumerMaxRSS>>10)
		}
	}

	// Reading protobuf messages in a program that does not import
	// schema/protoload fails, and says what to import; so does reading an
	// http URL without remote/httpread (before any request: nothing
	// listens at the URL).
	for i, pkg := range []string{"schema/protoload", "remote/httpread"} {
		if want := `import _ "` + module + "/" + pkg + `"`; !strings.Contains(lines[i+1], want) {
			t.Errorf("the consumer failed with %q, which does not name %s", lines[i+1], want)
		}
	}

	// The core's go line: no newer than its dependencies ask for.
	coreGo := goLine(t, filepath.Join(root, "go.mod"))
	cmd := exec.Command("go", "list", "-m", "-json", "all")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off")
	js, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m -json all: %v", err)
	}
	need, needBy := "1.0", ""
	dec := json.NewDecoder(strings.NewReader(string(js)))
	for {
		var m struct {
			Path, GoVersion string
			Main            bool
		}
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if !m.Main && m.GoVersion != "" && versionLess(need, m.GoVersion) {
			need, needBy = m.GoVersion, m.Path
		}
	}
	t.Logf("the core's go line is %s; its dependencies need %s (%s)", coreGo, need, needBy)
	if versionLess(need, coreGo) {
		t.Errorf("the core's go line is %s, newer than its dependencies need (%s, %s)", coreGo, need, needBy)
	}
}

// goLine returns the go line of a go.mod file.
func goLine(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "go "); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("%s has no go line", path)
	return ""
}

// versionLess reports whether Go version a is older than b ("1.25" <
// "1.25.1" < "1.26.0").
func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(pa), len(pb)) {
		x, y := 0, 0
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}
