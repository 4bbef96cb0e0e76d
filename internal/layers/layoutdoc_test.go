package layers

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the repository's root, seen from this package's folder.
var root = filepath.Join("..", "..")

// layoutDoc is the page that names every package and its one job.
const layoutDoc = "docs/layout.md"

// codeName matches a name in backquotes.
var codeName = regexp.MustCompile("`([^`]+)`")

// documented returns the packages that the tables of docs/layout.md name
// in their first column, relative to the repository's root ("" for the
// root package, which the page names `trevni`), each with the line that
// names it.
func documented(t *testing.T) map[string]int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, layoutDoc))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for i, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		for _, m := range codeName.FindAllStringSubmatch(cells[1], -1) {
			name := m[1]
			if name == "trevni" {
				name = ""
			}
			if prev, dup := names[name]; dup {
				t.Errorf("%s:%d names %s again (first on line %d)", layoutDoc, i+1, show(name), prev)
			}
			names[name] = i + 1
		}
	}
	if len(names) < 10 {
		t.Fatalf("%s names only %d packages in its tables", layoutDoc, len(names))
	}
	return names
}

// rootPackages lists the root module's packages with go list: those the
// table of layers places (TestLayers fails on any it does not).
func rootPackages(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		r, ok := rel(p)
		if !ok {
			t.Fatalf("go list listed %s, outside module %s", p, module)
		}
		pkgs = append(pkgs, r)
	}
	return pkgs
}

// nestedPackages returns the packages of the modules below the root's
// (each folder with a go.mod, such as sql and beam), found by walking
// their folders for Go files (go list would need their dependencies),
// relative to the repository's root, and the modules' folders.
func nestedPackages(t *testing.T) (pkgs, modules []string) {
	t.Helper()
	dirs := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		r = filepath.ToSlash(r)
		if d.IsDir() {
			name := d.Name()
			if r != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == "go.mod" && r != "go.mod" {
			modules = append(modules, filepath.Dir(r))
		}
		if strings.HasSuffix(d.Name(), ".go") {
			dirs[filepath.Dir(r)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir := range dirs {
		for _, m := range modules {
			if dir == m || strings.HasPrefix(dir, m+"/") {
				pkgs = append(pkgs, dir)
				break
			}
		}
	}
	return pkgs, modules
}

// TestLayoutNamesEveryPackage checks that docs/layout.md names every
// package of the table of layers (every package of the root module, which
// TestLayers holds to the table) and every package of the modules beside
// it, and names no package that does not exist.
func TestLayoutNamesEveryPackage(t *testing.T) {
	names := documented(t)
	pkgs := rootPackages(t)
	nested, modules := nestedPackages(t)
	exists := map[string]bool{}
	for _, p := range pkgs {
		exists[p] = true
		if level(p) < 0 {
			continue // TestLayers reports it
		}
		if _, ok := names[p]; !ok {
			t.Errorf("%s is in the table of layers (layer %s) but %s does not name it: give it a row, with its one job", show(p), layers[level(p)].name, layoutDoc)
		}
	}
	for _, p := range nested {
		exists[p] = true
		if _, ok := names[p]; !ok {
			t.Errorf("%s (a package of module %s) is not named in %s: give it a row, with its one job", p, module+"/"+moduleOf(p, modules), layoutDoc)
		}
	}
	for n, line := range names {
		if !exists[n] {
			t.Errorf("%s:%d names %s, which is no package: remove it or correct it", layoutDoc, line, show(n))
		}
	}
	// Every package of a module beside the root's was found (a guard on the
	// walk above).
	for _, m := range []string{"cmd/trevni", "stores", "tests", "sql", "beam"} {
		if !slices.Contains(modules, m) {
			t.Errorf("found no module %s below the root (modules found: %v)", m, modules)
		}
	}
}

// moduleOf returns the folder of the module of package dir.
func moduleOf(dir string, modules []string) string {
	best := ""
	for _, m := range modules {
		if (dir == m || strings.HasPrefix(dir, m+"/")) && len(m) > len(best) {
			best = m
		}
	}
	return best
}
