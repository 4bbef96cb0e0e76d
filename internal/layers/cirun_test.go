package layers

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// ciRun is what CI runs on a fresh clone.
const ciRun = ".ci/run"

// TestCIRun checks what .ci/run must do for every module: go mod tidy
// leaves each go.mod and go.sum as they are (go mod tidy -diff in a loop
// over every folder with a go.mod), the workspace's tests run for every
// module go.work uses, and every go test has an explicit -timeout with
// room (go test's default of 10 minutes is for a hung test: the
// command's tests took 534 s of it on a loaded machine), or is a fuzz run
// bounded by its -fuzztime.
func TestCIRun(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, ciRun))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	_, modules := nestedPackages(t)
	modules = append(modules, ".")

	tidy := regexp.MustCompile(`(?m)^for m in ([^;]+); do\n\s*\(cd "\$m" && GOWORK=off go mod tidy -diff\)`).FindStringSubmatch(text)
	if tidy == nil {
		t.Errorf("%s has no loop running go mod tidy -diff in every module (for m in ...; do (cd \"$m\" && GOWORK=off go mod tidy -diff)...)", ciRun)
	} else {
		checked := strings.Fields(tidy[1])
		for _, m := range modules {
			if !slices.Contains(checked, m) {
				t.Errorf("%s: go mod tidy -diff is not run in module %s (its loop: %v)", ciRun, m, checked)
			}
		}
	}

	work, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	ws := regexp.MustCompile(`(?m)^WORKSPACE=\(([^)]*)\)`).FindStringSubmatch(text)
	if ws == nil {
		t.Fatalf("%s has no WORKSPACE=(...) list of the workspace's packages", ciRun)
	}
	for _, use := range regexp.MustCompile(`(?m)^\s+(\./\S*|\.)\s*$`).FindAllStringSubmatch(string(work), -1) {
		pattern := strings.TrimSuffix(use[1], "/") + "/..."
		if !slices.Contains(strings.Fields(ws[1]), pattern) {
			t.Errorf("%s: WORKSPACE does not hold %s, a module go.work uses: its tests would not run", ciRun, pattern)
		}
	}

	m := regexp.MustCompile(`(?m)^test_timeout=(\S+)$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%s sets no test_timeout", ciRun)
	}
	if d, err := time.ParseDuration(m[1]); err != nil || d < 20*time.Minute {
		t.Errorf("%s: test_timeout=%s, want 20m or more (go test's default of 10m nearly ran out on a loaded machine)", ciRun, m[1])
	}
	tests := 0
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") || !strings.Contains(line, "go test ") {
			continue
		}
		tests++
		if !strings.Contains(line, `-timeout "$test_timeout"`) && !strings.Contains(line, "-fuzztime") {
			t.Errorf("%s:%d: go test without -timeout \"$test_timeout\": %s", ciRun, i+1, strings.TrimSpace(line))
		}
	}
	if tests < 3 {
		t.Errorf("%s: found %d go test lines, want those of the workspace, beam, sql and the fuzzing", ciRun, tests)
	}
}
