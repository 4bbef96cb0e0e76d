package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestCompletionAndManListEverything checks that every command and every
// flag of every command appears in each completion script and in the
// manual page, which are made from the same table.
func TestCompletionAndManListEverything(t *testing.T) {
	outputs := map[string]string{}
	for _, args := range [][]string{{"completion", "bash"}, {"completion", "zsh"}, {"completion", "fish"}, {"man"}} {
		r := runIn(t, nil, args...)
		if r.code != 0 || r.stderr != "" || r.stdout == "" {
			t.Fatalf("%q: %+v", args, r)
		}
		outputs[strings.Join(args, " ")] = r.stdout
	}
	if len(commandTable()) < 14 {
		t.Fatalf("%d commands", len(commandTable()))
	}
	for _, c := range commandTable() {
		flags := commandFlags(c)
		if c.name != "version" && c.name != "man" && c.name != "completion" && len(flags) < 2 {
			t.Errorf("%s: %d flags", c.name, len(flags))
		}
		for name, out := range outputs {
			if !strings.Contains(out, c.name) {
				t.Errorf("%s lacks the command %s", name, c.name)
			}
			for _, f := range flags {
				want := f.typed
				switch {
				case name == "man":
					want = ".B" + map[bool]string{true: "I \"", false: " "}[f.value != ""] + roff(f.typed)
				case name == "completion fish" && f.long:
					want = "-n '__fish_seen_subcommand_from " + c.name + "' -l " + f.name + " "
				case name == "completion fish":
					want = "-n '__fish_seen_subcommand_from " + c.name + "' -s " + f.name + " "
				}
				if !strings.Contains(out, want) {
					t.Errorf("%s lacks %s's flag %s (%q)", name, c.name, f.typed, want)
				}
			}
		}
	}
	if r := runIn(t, nil, "completion", "tcsh"); r.code != exitUsage {
		t.Errorf("completion tcsh: %+v", r)
	}
}

// TestBashCompletion parses the bash script and runs its function for a
// few command lines.
func TestBashCompletion(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no bash")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed to check the bash completion script")
	}
	script := filepath.Join(t.TempDir(), "trevni.bash")
	writeFileT(t, script, []byte(runIn(t, nil, "completion", "bash").stdout))
	if out, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	dir := t.TempDir()
	writeFileT(t, filepath.Join(dir, "events.avro"), nil)
	for _, c := range []struct {
		line string // the words; the last is being completed
		want string // COMPREPLY, sorted, space separated
	}{
		{"trevni to", "toarrow toavro toclmn tocsv tojson toparquet toproto"},
		{"trevni --quiet va", "validate"},
		{"trevni fromavro --co", "--codec"},
		{"trevni fromavro --codec zs", "zstandard zstd"},
		{"trevni toavro --codec x", "xz"},
		{"trevni fromproto -", "--block-memory --block-size --checksum --codec --descriptor-set --force --http-timeout --input --max-block-size --max-columns --max-depth --max-download --max-record-size --memory --message --proto --quiet --recursion-limit --stats --workers -I"},
		{"trevni fromproto --input j", "json"},
		{"trevni validate --", "--block-memory --http-timeout --impala-booleans --max-block-size --max-columns --max-depth --max-download --max-record-size --quiet --strict"},
		{"trevni completion f", "fish"},
		{"trevni help me", "meta"},
		{"trevni fromavro ev", "events.avro"},
	} {
		words := strings.Fields(c.line)
		if strings.HasSuffix(c.line, " ") {
			words = append(words, "")
		}
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, shellQuote(w))
		}
		prog := "source " + shellQuote(script) + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\n" +
			"COMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n_trevni\nprintf '%s\\n' \"${COMPREPLY[@]}\" | sort | tr '\\n' ' '\n"
		cmd := exec.Command(bash, "-c", prog)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Fatalf("%q: %v %s", c.line, err, stderr.String())
		}
		if got := strings.TrimSpace(string(out)); got != c.want {
			t.Errorf("%q: completes to %q, want %q", c.line, got, c.want)
		}
	}
}

// TestManRoff checks the manual page with groff's warnings, where groff is
// installed, and that no line starts with an unescaped control character.
func TestManRoff(t *testing.T) {
	page := runIn(t, nil, "man").stdout
	for _, l := range strings.Split(page, "\n") {
		if strings.HasPrefix(l, "'") {
			t.Errorf("line starts with a control character: %q", l)
		}
	}
	if !strings.HasPrefix(page, ".TH TREVNI 1") || !strings.Contains(page, ".SH EXIT STATUS") {
		t.Errorf("not a manual page:\n%s", page[:200])
	}
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Log("groff not installed: the page is not formatted")
		return
	}
	cmd := exec.Command(groff, "-man", "-ww", "-z")
	cmd.Stdin = strings.NewReader(page)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("groff: %v\n%s", err, out)
	}
	cmd = exec.Command(groff, "-man", "-Tutf8", "-P-cbou") // plain text
	cmd.Stdin = strings.NewReader(page)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{"trevni fromavro [flags] IN.avro... OUT.trv", "--descriptor-set FILE", "-I DIR", "128+N"} {
		if !strings.Contains(strings.ReplaceAll(text, "\u2010", "-"), want) {
			t.Errorf("formatted page lacks %q", want)
		}
	}
}

// TestDocListsCommands checks that the package documentation lists every
// command with its summary.
func TestDocListsCommands(t *testing.T) {
	doc := string(readFile(t, "doc.go"))
	for _, c := range commandTable() {
		if !strings.Contains(doc, "//\t"+c.name+" ") {
			t.Errorf("doc.go does not list %s", c.name)
		}
	}
}
