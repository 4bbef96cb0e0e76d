package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/trevni-go/trevni/remote/httpread"
)

// A command is one entry of the command table. Adding a command to the tool
// is writing a file NAME.go holding its help, its spec function (NAMESpec,
// returning its command) and its setup function, and listing the spec in
// commandTable.
type command struct {
	name    string   // as typed after "trevni"
	args    string   // the synopsis of its arguments, after the flags: "IN.trv [OUT.json]"
	minArgs int      // fewest positional arguments, the output included
	maxArgs int      // most positional arguments, or -1 for no limit
	summary string   // one line for the list of commands
	help    string   // what it does, with an example; shown by "trevni help NAME"
	output  outputAt // where its output is; the framework creates and commits it
	dataset bool     // its inputs are a data set: globs and directories are expanded
	stdin   bool     // reads standard input when no argument is given and it is not a terminal

	// setup defines the command's flags on fs and returns the function
	// that runs it, which sees the flags' values through its closure.
	// --quiet is defined on fs for every command; its value is env.quiet.
	setup func(fs *flag.FlagSet) runFunc
}

// outputAt says where a command's output is among its positional
// arguments.
type outputAt int

const (
	noOutput       outputAt = iota // it writes no output (validate, count)
	stdoutOutput                   // standard output, always (head)
	lastOutput                     // the last argument (fromavro IN... OUT)
	optionalOutput                 // the last argument, when it is not an input; standard output otherwise
	prefixOutput                   // the last argument is a prefix of the files the command creates itself (e.createOutput), passed to it as the last of ins
)

// writesFile reports whether the command may write a named file, and so
// takes --force.
func (c *command) writesFile() bool {
	return c.output == lastOutput || c.output == optionalOutput || c.output == prefixOutput
}

// splitArgs splits the positional arguments into the inputs and the
// output's name ("-" for standard output, "" when there is no output).
// An optional output is the second argument of a command of one input
// (schema IN [OUT]); for a command reading a data set, the last of
// several arguments when it is not input (a URL, a glob, a directory, or
// a file that starts as a file of a format the front door reads does).
func (c *command) splitArgs(args []string) (ins []string, out string) {
	switch c.output {
	case noOutput, prefixOutput:
		return args, ""
	case lastOutput:
		if len(args) == 0 {
			return nil, "-"
		}
		return args[:len(args)-1], args[len(args)-1]
	case optionalOutput:
		if n := len(args); n > 1 && (!c.dataset || !isInputArg(args[n-1])) {
			return args[:n-1], args[n-1]
		}
	}
	return args, "-"
}

// runFunc runs a command with its inputs (the positional arguments less
// the output, already checked against minArgs and maxArgs, and expanded
// when the command reads a data set) and its output, which is nil when
// the command has none. The framework (app.runCommand) creates the
// output before the run, commits it when the run returns nil and aborts
// it otherwise: the run only writes to it. Its error is reported as one
// line with exit status 1, or as a usage error with status 2 if it is a
// *usageError (see env.usagef). It must check e.ctx in long loops.
type runFunc func(e *env, ins []string, out *output) error

// commandTable lists the commands in the order "trevni help" shows them.
func commandTable() []*command {
	return append([]*command{
		fromavroSpec(),
		toavroSpec(),
		tojsonSpec(),
		fromjsonSpec(),
		fromprotoSpec(),
		toprotoSpec(),
		concatSpec(),
		recodecSpec(),
		splitSpec(),
		randomSpec(),
		schemaSpec(),
		metaSpec(),
		columnsSpec(),
		dumpSpec(),
		inspectSpec(),
		validateSpec(),
		versionSpec(),
		completionSpec(),
		manSpec(),
		fromcsvSpec(),
		tocsvSpec(),
		fromclmnSpec(),
		toclmnSpec(),
		countSpec(),
		headSpec(),
	}, arrowCommands()...)
}

// lookupCommand returns the command called name, or nil.
func lookupCommand(name string) *command {
	for _, c := range commandTable() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// commonFlags are the flags every command takes.
type commonFlags struct {
	quiet  bool // --quiet
	force  bool // --force, for commands that write a file
	limits limitFlags
}

// limitFlags are the flags that raise the limits on hostile or unusual
// inputs (docs/limits.md), for every command that reads or writes data.
type limitFlags struct {
	maxColumns, maxDepth  int
	maxBlock, blockMemory string
	maxRecord             string
	maxDownload           string
	httpTimeout           time.Duration
	skipChecksums         bool // --skip-checksums, for the commands of checksummed
}

// checksummed lists the commands that read blocks of data whose
// checksums are verified (Trevni blocks' CRC-32s, Parquet pages' CRC-32s):
// they take --skip-checksums. validate always verifies; meta, schema,
// columns and inspect read headers and statistics, which carry none.
var checksummed = []string{
	"tojson", "head", "count", "dump", "tocsv", "toavro", "toproto", "toclmn",
	"toarrow", "toparquet", "fromparquet", "concat", "split", "recodec",
}

// noData lists the commands that read no data file, and so take no limit
// flags.
var noData = []string{"version", "completion", "man", "help"}

// addLimitFlags defines the limit flags.
func addLimitFlags(fs *flag.FlagSet, l *limitFlags) {
	fs.IntVar(&l.maxColumns, "max-columns", 0, "allow schemas, CSV headers and CLMN files of up to `N` columns (default 65536)")
	fs.IntVar(&l.maxDepth, "max-depth", 0, "allow types nested up to `N` deep (default 1000)")
	fs.StringVar(&l.maxBlock, "max-block-size", "", "read and write Trevni blocks of up to `SIZE` uncompressed (default 64MiB)")
	fs.StringVar(&l.blockMemory, "block-memory", "", "hold up to `SIZE` of Trevni blocks (or CLMN inflaters) in memory while reading (default 512MiB)")
	fs.StringVar(&l.maxRecord, "max-record-size", "", "allow records (rows) of up to `SIZE` as assembled in memory (default 64MiB)")
	fs.StringVar(&l.maxDownload, "max-download", "", "download up to `SIZE` of a URL whose server serves no byte ranges, into a temporary file (default 1GiB)")
	fs.DurationVar(&l.httpTimeout, "http-timeout", httpread.DefaultTimeout, "fail an HTTP read that waits `DURATION` for a connection, a response header or the next byte of a body, and any request to an object store that makes no progress for as long (its upload's body not taken included); a store's request is retried (0: wait forever)")
}

// flagSet returns a new flag set holding the command's flags and the common
// ones, the function that runs the command with them, and the common flags'
// values. quiet is --quiet's default (given before the command's name).
// Help, completion and the manual page are all made from this flag set.
func (c *command) flagSet(quiet bool) (*flag.FlagSet, runFunc, *commonFlags) {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	run := c.setup(fs)
	cf := &commonFlags{}
	if c.writesFile() {
		fs.BoolVar(&cf.force, "force", false, "replace an existing output file (never one of the inputs)")
	}
	if !slices.Contains(noData, c.name) {
		addLimitFlags(fs, &cf.limits)
	}
	if slices.Contains(checksummed, c.name) {
		fs.BoolVar(&cf.limits.skipChecksums, "skip-checksums", false, "read blocks (Trevni and Trevni 1 blocks, CLMN columns, Parquet pages) without verifying their checksums, to read what a damaged file still holds")
	}
	fs.BoolVar(&cf.quiet, "quiet", quiet, "show no progress")
	return fs, run, cf
}

// inputFile is the value of a flag naming a file the command reads: a
// command never writes over one (see env.checkOutput).
type inputFile struct{ p *string }

func (f inputFile) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f inputFile) Set(v string) error { *f.p = v; return nil }

// inputFileVar defines a flag naming a file the command reads.
func inputFileVar(fs *flag.FlagSet, name, usage string) *string {
	p := new(string)
	fs.Var(inputFile{p}, name, usage)
	return p
}

// inputFiles returns the values of the input file flags set in fs.
func inputFiles(fs *flag.FlagSet) []string {
	var files []string
	fs.Visit(func(f *flag.Flag) {
		if v, ok := f.Value.(inputFile); ok && *v.p != "" {
			files = append(files, *v.p)
		}
	})
	return files
}

// checkArgs checks the number of positional arguments.
func (c *command) checkArgs(args []string) error {
	switch {
	case len(args) < c.minArgs:
		return errors.New("missing arguments")
	case c.maxArgs >= 0 && len(args) > c.maxArgs:
		return fmt.Errorf("too many arguments: %s", strings.Join(args[c.maxArgs:], " "))
	}
	return nil
}

// synopsis returns the command line of the command: "trevni dump [flags]
// IN.trv [OUT.jsonl]".
func (c *command) synopsis() string {
	return strings.TrimSpace("trevni " + c.name + " [flags] " + c.args)
}

// usageHint is the last line of a usage error: where to read the usage.
// The message (and, for a --where expression, the expression with a caret
// under the fault) comes before it; the full help is for "trevni help
// NAME" and "trevni NAME -h".
func (c *command) usageHint(w io.Writer) {
	fmt.Fprintf(w, "run 'trevni help %s' for usage\n", c.name)
}

// printHelp prints the command's full description.
func (c *command) printHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n\n", c.synopsis())
	fmt.Fprintln(w, strings.TrimSpace(c.help))
	fmt.Fprintln(w)
	printFlags(w, fs)
}

// flagName returns how a flag is written on the command line: with one
// dash for a one-letter name (-I), two otherwise (--codec).
func flagName(f *flag.Flag) string {
	if len(f.Name) == 1 {
		return "-" + f.Name
	}
	return "--" + f.Name
}

// flagSynopsis returns a flag as it is typed, with its value's name
// ("--codec string"), and its description with the default.
func flagSynopsis(f *flag.Flag) (synopsis, usage string) {
	name, usage := flag.UnquoteUsage(f)
	synopsis = flagName(f)
	if name != "" {
		synopsis += " " + name
	}
	if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
		usage += fmt.Sprintf(" (default %s)", f.DefValue)
	}
	return synopsis, usage
}

// printFlags lists the flags of fs, aligned.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "Flags:")
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		s, _ := flagSynopsis(f)
		width = max(width, len(s))
	})
	fs.VisitAll(func(f *flag.Flag) {
		s, usage := flagSynopsis(f)
		fmt.Fprintf(w, "  %-*s  %s\n", width, s, usage)
	})
}

// parseArgs parses flags anywhere among the arguments, not only before the
// first positional one, and returns the positional arguments. "--" ends the
// flags; "-" is positional; -n2 is -n 2 (joinedShortFlags).
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	args = joinedShortFlags(fs, args)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// toolSummary is the tool's description in one line; toolNotes is what
// holds for every command. The usage, the manual page and the completion
// scripts are made from them and from the command table.
const (
	toolPurpose = "read, check and convert Trevni column files"
	toolSummary = "Trevni reads, checks and converts Trevni column files."
	toolNotes   = `Flags may come before or after the file names; -- ends them. Every
command takes --quiet (no progress on standard error) and -h; every
command that writes a file takes --force. A file argument of "-" means
standard input or standard output; an absent output means standard
output. The reading commands (tojson, schema, meta, columns, dump,
validate, count, head) read standard input when no input is named and it
is not a terminal.

An existing output file is replaced only with --force, and never when it
is one of the command's inputs (the same file under any name or link).
Output files are written in a temporary directory beside them and renamed
into place only when the command succeeds. Without --force that rename
never replaces a file: if another process created one under the name
while the command ran, it is left untouched and the command fails. A
command whose standard output is one of its inputs (trevni tojson g.trv
>> g.trv) refuses to run: "input file is output file".

A usage error prints its message (for a --where expression, the
expression with a caret under the fault) and the line "run 'trevni help
COMMAND' for usage"; the full help is "trevni help COMMAND" or
"trevni COMMAND -h".

Exit status: 0 success, 1 error or problems found, 2 usage error,
128+N interrupted by signal N (130 SIGINT, 143 SIGTERM).`
)

// usage prints the tool's usage and its list of commands.
func (a *app) usage(w io.Writer) {
	fmt.Fprintf(w, "%s\n\nusage: trevni COMMAND [flags] ARGS\n       trevni --version\n\nCommands:\n", toolSummary)
	width := 0
	for _, c := range commandTable() {
		width = max(width, len(c.name))
	}
	for _, c := range commandTable() {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprintf(w, "  %-*s  %s\n", width, "help", "explain a command: trevni help COMMAND")
	fmt.Fprintf(w, "\n%s\n", toolNotes)
}

// help runs "trevni help [COMMAND]".
func (a *app) help(args []string) int {
	switch len(args) {
	case 0:
		a.usage(a.stdout)
		return exitOK
	case 1:
		if args[0] == "help" {
			fmt.Fprintln(a.stdout, "usage: trevni help COMMAND\n\nExplains COMMAND, with an example.")
			return exitOK
		}
		cmd := lookupCommand(args[0])
		if cmd == nil {
			fmt.Fprintf(a.stderr, "trevni: help: unknown command %q\nRun 'trevni help' for the list of commands.\n", args[0])
			return exitUsage
		}
		fs, _, _ := cmd.flagSet(false)
		cmd.printHelp(a.stdout, fs)
		return exitOK
	}
	fmt.Fprintln(a.stderr, "trevni: help: too many arguments\nusage: trevni help [COMMAND]")
	return exitUsage
}

// readWorkers is how the reading commands that write records in order
// (toavro, tojson, toproto, tocsv, toarrow, toparquet) run: on n goroutines, holding at most memory
// bytes of encoded records waiting to be written (0: the default).
type readWorkers struct {
	n      int
	memory int64
}

// addReadWorkersFlags defines --workers and --output-memory on the reading
// commands that write records in order, and returns a function giving
// their values.
func addReadWorkersFlags(fs *flag.FlagSet) func() (readWorkers, error) {
	workers := addWorkersFlag(fs)
	memory := fs.String("output-memory", "", "with several workers, hold at most `SIZE` of records waiting to be written in order, in all (default: 1MiB for each worker and one more, and half a task, up to 8MiB, where a task must be larger)")
	return func() (readWorkers, error) {
		n, err := workers()
		if err != nil || *memory == "" {
			return readWorkers{n: n}, err
		}
		m, err := parseSize(*memory)
		if err != nil || m <= 0 {
			return readWorkers{}, &usageError{msg: fmt.Sprintf("--output-memory %q: want a size such as 4MiB", *memory)}
		}
		return readWorkers{n: n, memory: m}, nil
	}
}

// addWorkersFlag defines --workers on the commands that read or write rows
// on several goroutines, and returns a function giving its value: the
// number of workers, GOMAXPROCS when the flag is absent or 0.
func addWorkersFlag(fs *flag.FlagSet) func() (int, error) {
	n := fs.Int("workers", 0, "decode and encode rows on `N` goroutines (default 0: one per core, GOMAXPROCS)")
	return func() (int, error) {
		switch {
		case *n < 0:
			return 0, &usageError{msg: "--workers must not be negative"}
		case *n == 0:
			return runtime.GOMAXPROCS(0), nil
		}
		return *n, nil
	}
}
