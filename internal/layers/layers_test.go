package layers

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the module's path; packages below are named relative to it
// ("" for the root package), those of the modules beside it in the
// repository's workspace (cmd/trevni, stores) too.
const module = "github.com/trevni-go/trevni"

// workspace are the packages of the repository's workspace (go.work): the
// core module's, the command's (its own module), the store drivers' (the
// stores module) and the test module's (tests).
var workspace = []string{"./...", "./cmd/trevni/...", "./stores/...", "./tests/..."}

// testModule is the folder of the test module, whose packages hold test
// files only: their tests' imports are checked as the imports of other
// packages are.
const testModule = "tests"

// goCmd returns a go command run at the repository's root in its
// workspace, whatever GOWORK the test runs with.
func goCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(root, "go.work"))
	return cmd
}

// A layer is a set of packages that may import packages of lower layers
// only: never one of their own layer, never one above. Nothing imports a
// package of the last layer (the commands).
type layer struct {
	name string
	pkgs []string
}

// layers is the architecture, from the bottom up. The comment of each
// layer says what its packages are for and what they must not know. A new
// package must be placed here, or the test fails.
var layers = []layer{
	// Leaves: primitives with no knowledge of any file format or schema.
	// avrobin is Avro's binary encoding (varints, block counts, lengths),
	// codec the block compressors, jsontext JSON text, utf8check UTF-8
	// validation, atomicfile output files that appear only when complete,
	// budget the memory a reader's blocks may hold, limitfile reads
	// small files (schemas, descriptor sets) within a bound;
	// protosafe wraps the Protobuf runtime; protoset is the seam through
	// which the protobuf readers and writers reach the descriptor packages
	// schema/protoload links and registers;
	// the stores module's faulthttp (the faults of the object store
	// servers) is a test helper, layers this test; ordered
	// runs tasks on workers and hands their output on in order;
	// shortval copies short values a word at a time.
	{"leaves", []string{
		"internal/avrobin", "internal/codec", "internal/jsontext", "internal/utf8check",
		"internal/protosafe", "internal/protoset",
		"stores/internal/faulthttp",
		"internal/layers", "internal/atomicfile", "internal/budget", "internal/limitfile",
		"internal/ordered", "internal/shortval",
	}},
	// Models that know nothing of each other: the Avro schema model
	// (schema), the per-block statistics of format (format/stats), Avro
	// object container files (internal/ocf),
	// loading .proto files (schema/protoload), remote, coalesced and
	// header reads of any io.ReaderAt and what the front door needs of an
	// http(s) reader, and remote/store, what the front door needs of an object
	// store and the registry of the drivers a program links; the stores
	// module's s3server (an S3 server) and gcsserver (a GCS server) are
	// test helpers over faulthttp, and procserver (Azurite and versitygw
	// as processes) a test helper over the standard library.
	{"models", []string{
		"schema", "format/stats", "internal/ocf", "schema/protoload", "remote", "remote/store",
		"stores/storetest/s3server", "stores/storetest/gcsserver", "stores/storetest/procserver",
	}},
	// The reader of http(s) URLs over net/http, which a program links by
	// importing it (it registers its client on remote in its init): the
	// only package of the core that imports net/http; and the stores
	// module's stallhttp, which bounds the time an HTTP exchange with a
	// store may go without progress, its error a remote.ErrTimeout.
	{"http driver", []string{"remote/httpread", "stores/internal/stallhttp"}},
	// The stores module's own driver of gocloud.dev/blob for Google Cloud
	// Storage, over its JSON API with net/http and golang.org/x/oauth2/google
	// only.
	{"gocloud drivers", []string{"stores/gcs"}},
	// Object stores (S3, GCS, Azure) through gocloud.dev/blob, in the
	// stores module: the machinery the drivers share, naming no SDK (each
	// driver hands it a Provider of its own store's SDK). No package of
	// the core module imports it.
	{"stores", []string{"stores/objstore"}},
	// The drivers a program links by importing them: each registers its
	// scheme on remote/store in its init, and makes a store of a
	// program's own client; the only packages that import a cloud SDK,
	// each its own store's.
	{"store drivers", []string{"stores/s3", "stores/gs", "stores/azblob"}},
	// File formats and value mappings. format is Trevni version 2: columns,
	// blocks, codecs and checksums, and nothing of Avro schemas, Protobuf,
	// shredding or assembling. typemap maps
	// Avro values to Go values; fieldpath and avrostruct serve the layers
	// above.
	{"formats", []string{
		"format", "typemap", "internal/fieldpath", "internal/avrostruct",
	}},
	// The one mapping from Avro types to Trevni column types, below both
	// the layout and Trevni version 1, which present columns of an Avro
	// schema.
	{"column types", []string{"schema/coltype"}},
	// How the parallel readers cut a file's rows into tasks, from its
	// block descriptors.
	{"row tasks", []string{"internal/rowtasks"}},
	// Trevni version 1, Impala's sibling of format: its reader, writer and
	// records over the Avro schema model, sharing format's errors and
	// limits, and knowing nothing of shredding or assembling; and the CLMN
	// format (clmn). Both present their columns as a format.Source.
	{"siblings", []string{"trevni1", "clmn"}},
	// The column layout of an Avro schema in a Trevni file, and helpers
	// over schemas and their values.
	{"layout", []string{
		"schema/layout", "internal/avrojson",
	}},
	// Plain JSON read back into Avro values, and schemas inferred from it.
	{"plain JSON", []string{"internal/plainjson"}},
	// Protobuf schemas in the layout, predicates over columns and their
	// statistics, and .proto sources compiled (protosrc, the only package
	// that links the .proto compiler: reading never does).
	{"schemas", []string{"schema/protoschema", "predicate", "schema/protoload/protosrc"}},
	// Protobuf values against their layout.
	{"values", []string{"typemap/protovalue"}},
	// Records to columns (shred) and columns to records (assemble): the
	// two directions never import each other.
	{"conversion", []string{"shred", "assemble"}},
	// The columnar read layer: a leaf's columns as runs of Dremel levels
	// and values, for the rows of ranges and a filter's selection, with
	// no records assembled (Parquet column chunks are written from it).
	{"columnar reads", []string{"assemble/levels"}},
	// What combines both directions: version 1 to and from version 2,
	// CSV tables; and Avro container files read as a column source
	// (ocfsource: their blocks shredded in memory as they are read).
	{"combinations", []string{"trevni1/convert", "csvtable", "internal/ocfsource"}},
	// The front door's plumbing for the command and the bridges: names
	// expanded, the one committer of outputs, and what the root hands
	// down (batches, candidate rows, a part as Trevni 2 columns, concat
	// over data sets opened on their own), kept out of the root's API.
	{"front door plumbing", []string{"internal/frontdoor"}},
	// The root package: the module's front door, above every library
	// package (it may not exist yet).
	{"root", []string{""}},
	// Bridges to the tools data engineers use, over the front door: Arrow
	// record batches and Arrow IPC files (trevniarrow). Only the bridges
	// may import their heavy dependencies.
	{"bridges", []string{"trevniarrow"}},
	// Parquet files, over the Arrow bridge (trevniparquet).
	{"Parquet bridge", []string{"trevniparquet"}},
	// The helpers of tests, under internal/testing: servers (rangeserver),
	// random schemas, values, messages and filters (avrorand, protorand,
	// predrand), the vec.Large records of the benchmarks (veclarge),
	// peak-heap measurement (memtest) and the test of the documentation's
	// examples (doctest). They may use any library package; only tests,
	// commands and benchmark programs may import them, so that no library
	// package links them.
	{"test helpers", []string{"internal/testing/..."}},
	// Commands and benchmark programs: nothing imports them but the
	// test module.
	{"commands", []string{"cmd/...", "bench/..."}},
	// The test module (tests/): the tests that need modules no user of
	// the library should find in their build list (OTLP's generated
	// types, parquet-go), in folders named as the packages they test. Its tests may
	// use any package below; nothing imports it, so that none of its
	// dependencies reaches a library user's or the command's build.
	{"test module", []string{testModule, testModule + "/..."}},
}

// optional lists the table's packages that need not exist.
var optional = map[string]bool{"": true}

// heavy lists import path prefixes that only the packages named may
// import: the network, and dependencies that belong at the edge (the Beam
// module, Arrow, DuckDB, cloud SDKs), which no library package here may
// pull in.
var heavy = []struct {
	prefix  string
	allowed []string
}{
	{"net/http", []string{"remote/httpread", "stores/objstore", "stores/gcs", "stores/gs", "stores/s3", "stores/azblob", "internal/testing/rangeserver", "stores/storetest/s3server", "stores/storetest/gcsserver", "stores/storetest/procserver", "stores/internal/faulthttp", "stores/internal/stallhttp"}},
	{"github.com/apache/beam", nil},
	{"github.com/apache/arrow", []string{"trevniarrow", "trevniparquet"}},
	{"github.com/apache/arrow-go", []string{"trevniarrow", "trevniparquet"}},
	{"github.com/duckdb", nil},
	{"github.com/marcboeker/go-duckdb", nil},
	{"gocloud.dev", []string{"stores/objstore", "stores/gcs", "stores/s3", "stores/gs", "stores/azblob"}},
	{"golang.org/x/oauth2", []string{"stores/gcs"}},
	{"cloud.google.com", nil},
	{"google.golang.org/api", nil},
	{"github.com/aws", []string{"stores/s3"}},
	{"github.com/Azure", []string{"stores/azblob"}},
	{"github.com/johannesboyne/gofakes3", []string{"stores/storetest/s3server"}},
	{"github.com/fsouza/fake-gcs-server", []string{"stores/storetest/gcsserver"}},
	{"github.com/bufbuild/protocompile", []string{"schema/protoload/protosrc"}},
	// The protobuf runtime's descriptor and JSON packages (about 3 MB of
	// binary, 2 MiB resident): only what a program imports to read or
	// write protobuf; the readers and writers reach them through
	// internal/protoset, so a reader of Avro-written files links none.
	{"google.golang.org/protobuf/types/descriptorpb", []string{"schema/protoload", "schema/protoload/protosrc"}},
	{"google.golang.org/protobuf/reflect/protodesc", []string{"schema/protoload", "schema/protoload/protosrc"}},
	{"google.golang.org/protobuf/encoding/protojson", []string{"schema/protoload"}},
}

// noProtoNoAvro lists packages that must not import the Protobuf runtime or
// an Avro library: the file formats stay free of both.
var noProtoNoAvro = []string{"format", "format/stats", "internal/codec", "clmn", "trevni1", "internal/ocf"}

var foreignSchema = []string{"google.golang.org/protobuf", "github.com/linkedin/goavro"}

// noAvroModel lists packages that must not import the module's own Avro
// schema model either: Trevni 2's format treats avro.schema as metadata.
var noAvroModel = []string{"format", "format/stats", "internal/codec", "clmn"}

// level returns the layer of package rel (relative to module), or -1.
func level(rel string) int {
	for i, l := range layers {
		for _, p := range l.pkgs {
			if p == rel || strings.HasSuffix(p, "/...") && strings.HasPrefix(rel+"/", strings.TrimSuffix(p, "...")) {
				return i
			}
		}
	}
	return -1
}

func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

func show(rel string) string {
	if rel == "" {
		return module
	}
	return rel
}

func hasPrefixPath(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// TestLayers lists the workspace's packages with one go list and checks
// every non-test import against the table.
func TestLayers(t *testing.T) {
	// A package of the test module is listed with its tests' imports
	// too (it has no other code).
	format := "{{.ImportPath}} {{.Name}} {{join .Imports \" \"}}" +
		"{{if eq .Module.Path \"" + module + "/" + testModule + "\"}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}{{end}}"
	cmd := goCmd(t, append([]string{"list", "-f", format}, workspace...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			t.Fatalf("go list line %q", sc.Text())
		}
		pkg, ok := rel(f[0])
		if !ok {
			t.Errorf("package %s is outside module %s", f[0], module)
			continue
		}
		seen[pkg] = true
		lv := level(pkg)
		if lv < 0 {
			t.Errorf("package %s is in no layer: place it in the table of internal/layers/layers_test.go", show(pkg))
			continue
		}
		if f[1] == "main" && layers[lv].name != "commands" {
			t.Errorf("package %s is a command (package main) outside the commands layer", show(pkg))
		}
		for _, imp := range f[2:] {
			if dep, ok := rel(imp); ok {
				dl := level(dep)
				switch {
				case dl < 0:
					t.Errorf("%s imports %s, which is in no layer", show(pkg), show(dep))
				case dl >= lv:
					t.Errorf("%s (layer %s) imports %s (layer %s): a package may import only layers below its own", show(pkg), layers[lv].name, show(dep), layers[dl].name)
				}
				continue
			}
			if layers[lv].name == "commands" || layers[lv].name == "test module" {
				continue // they link what they need; nothing links them
			}
			for _, h := range heavy {
				if hasPrefixPath(imp, h.prefix) && !slices.Contains(h.allowed, pkg) {
					t.Errorf("%s imports %s, which only %v may import", show(pkg), imp, h.allowed)
				}
			}
			if slices.Contains(noAvroModel, pkg) && hasPrefixPath(imp, module+"/schema") {
				t.Errorf("%s imports %s: Trevni's format knows nothing of Avro schemas", show(pkg), imp)
			}
			if slices.Contains(noProtoNoAvro, pkg) {
				for _, p := range foreignSchema {
					if hasPrefixPath(imp, p) {
						t.Errorf("%s imports %s: the file formats know nothing of Protobuf or Avro libraries", show(pkg), imp)
					}
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(seen) < 10 {
		t.Fatalf("go list found only %d packages", len(seen))
	}
	// The table names no package that is gone.
	for _, l := range layers {
		for _, p := range l.pkgs {
			if strings.HasSuffix(p, "/...") || optional[p] || seen[p] {
				continue
			}
			t.Errorf("layer %s lists %s, which does not exist: remove it from the table", l.name, show(p))
		}
	}
}

// core lists the packages that read and write the format and its records,
// which a program may use without the network or a cloud SDK linked in.
var core = []string{"format", "schema", "shred", "assemble", "predicate"}

// cloud lists import path prefixes no core package may depend on, however
// indirectly.
var cloud = []string{
	"net/http", "gocloud.dev", "cloud.google.com", "google.golang.org/api", "google.golang.org/grpc",
	"github.com/aws", "github.com/Azure", "github.com/johannesboyne/gofakes3", "github.com/fsouza/fake-gcs-server",
	"golang.org/x/oauth2",
}

// TestCoreDeps checks, with go list -deps, that no package the core
// packages depend on, directly or not, is the network or a cloud SDK.
func TestCoreDeps(t *testing.T) {
	args := []string{"list", "-deps"}
	for _, p := range core {
		args = append(args, "./"+p)
	}
	cmd := goCmd(t, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderr.Bytes())
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"/format") {
		t.Fatalf("go list -deps %v listed no format: %q", core, deps)
	}
	for _, d := range deps {
		for _, c := range cloud {
			if hasPrefixPath(d, c) {
				t.Errorf("the core packages %v depend on %s", core, d)
			}
		}
	}
}

// commandFree lists import path prefixes the trevni command must not
// depend on, however indirectly: the test servers, and Google's storage
// client with what it links (gRPC's xDS and the Envoy protocol buffers,
// Cloud Monitoring, OpenTelemetry's exporters), which cost the command
// about 30 MB of binary and 20 MB of memory at start before the module
// had its own GCS driver. (gRPC's core is still linked, through Arrow's
// Parquet package and gocloud.dev's user agent, and is not listed.)
var commandFree = []string{
	"github.com/johannesboyne/gofakes3", "github.com/fsouza/fake-gcs-server",
	"cloud.google.com/go/storage", "gocloud.dev/blob/gcsblob", "cloud.google.com/go/monitoring",
	"cloud.google.com/go/iam", "google.golang.org/grpc/xds", "github.com/envoyproxy", "github.com/cncf/xds",
	"github.com/GoogleCloudPlatform/opentelemetry-operations-go",
}

// TestCommandDeps checks, with go list -deps, that the trevni command
// links none of commandFree, and links the GCS driver it uses instead.
func TestCommandDeps(t *testing.T) {
	cmd := goCmd(t, "list", "-deps", "./cmd/trevni")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderr.Bytes())
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"/stores/gcs") {
		t.Fatalf("go list -deps ./cmd/trevni lists no GCS driver: %d packages", len(deps))
	}
	for _, d := range deps {
		for _, c := range commandFree {
			if hasPrefixPath(d, c) {
				t.Errorf("cmd/trevni depends on %s", d)
			}
		}
	}
}

// TestLevel checks the table's lookup, on which the test above relies.
func TestLevel(t *testing.T) {
	for _, tc := range []struct {
		pkg  string
		want string
	}{
		{"format", "formats"},
		{"cmd/trevni", "commands"},
		{"bench/peerbench/genlarge", "commands"},
		{"internal/testing/avrorand", "test helpers"},
		{"internal/testingx", ""},
		{"", "root"},
		{"cmdx", ""},
		{"tests", "test module"},
		{"tests/typemap/protovalue", "test module"},
		{"testsx", ""},
		{"format/statsx", ""},
	} {
		got := ""
		if lv := level(tc.pkg); lv >= 0 {
			got = layers[lv].name
		}
		if got != tc.want {
			t.Errorf("level(%q) is layer %q, want %q", tc.pkg, got, tc.want)
		}
	}
}
