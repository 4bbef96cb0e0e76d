package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// A command is one entry of the command table. Adding a command to the tool
// is adding an entry to commandTable and writing its setup function.
type command struct {
	name    string // as typed after "trevni"
	args    string // the synopsis of its arguments, after the flags: "IN.trv [OUT.json]"
	minArgs int    // fewest positional arguments
	maxArgs int    // most positional arguments, or -1 for no limit
	summary string // one line for the list of commands
	help    string // what it does, with an example; shown by "trevni help NAME"
	writes  bool   // writes a file: takes --force
	stdin   bool   // reads standard input when no argument is given and it is not a terminal

	// setup defines the command's flags on fs and returns the function
	// that runs it, which sees the flags' values through its closure.
	// --quiet is defined on fs for every command; its value is env.quiet.
	setup func(fs *flag.FlagSet) runFunc
}

// runFunc runs a command with its positional arguments, already checked
// against minArgs and maxArgs. Its error is reported as one line with exit
// status 1, or with the usage and status 2 if it is a *usageError (see
// env.usagef). It must check e.ctx in long loops, and write output files
// only through env.createOutput.
type runFunc func(e *env, args []string) error

// commandTable lists the commands in the order "trevni help" shows them.
func commandTable() []*command {
	return append([]*command{
		{
			name: "fromavro", writes: true, args: "IN.avro... OUT.trv", minArgs: 2, maxArgs: -1,
			summary: "convert an Avro container file to Trevni",
			help:    fromavroHelp, setup: fromavroCommand,
		},
		{
			name: "toavro", writes: true, args: "IN.trv... OUT.avro", minArgs: 2, maxArgs: -1,
			summary: "convert a Trevni file back to an Avro container file",
			help:    toavroHelp, setup: toavroCommand,
		},
		{
			name: "tojson", writes: true, stdin: true, args: "IN.trv... [OUT.jsonl]", minArgs: 1, maxArgs: -1,
			summary: "print records as Avro JSON, one per line",
			help:    tojsonHelp, setup: tojsonCommand,
		},
		{
			name: "fromjson", writes: true, args: "IN.jsonl OUT.trv", minArgs: 2, maxArgs: 2,
			summary: "convert Avro JSON lines to Trevni",
			help:    fromjsonHelp, setup: fromjsonCommand,
		},
		{
			name: "fromproto", writes: true, args: "IN OUT.trv", minArgs: 2, maxArgs: 2,
			summary: "convert a stream of protobuf messages to Trevni",
			help:    fromprotoHelp, setup: fromprotoCommand,
		},
		{
			name: "toproto", writes: true, args: "IN.trv... OUT", minArgs: 2, maxArgs: -1,
			summary: "convert a Trevni file made from protobuf back to messages",
			help:    toprotoHelp, setup: toprotoCommand,
		},
		{
			name: "concat", writes: true, args: "IN.trv... OUT.trv", minArgs: 2, maxArgs: -1,
			summary: "join Trevni files of the same columns by copying their blocks",
			help:    concatHelp, setup: concatCommand,
		},
		{
			name: "random", writes: true, args: "SCHEMA.avsc COUNT OUT.trv", minArgs: 3, maxArgs: 3,
			summary: "write random records of an Avro schema",
			help:    randomHelp, setup: randomCommand,
		},
		{
			name: "schema", writes: true, stdin: true, args: "IN.trv [OUT.avsc]", minArgs: 1, maxArgs: 2,
			summary: "print the Avro schema stored in a file",
			help:    schemaHelp, setup: schemaCommand,
		},
		{
			name: "meta", writes: true, stdin: true, args: "IN.trv... [OUT.json]", minArgs: 1, maxArgs: -1,
			summary: "print a file's metadata, columns and block descriptors as JSON",
			help:    metaHelp,
			setup:   metaCommand,
		},
		{
			name: "dump", writes: true, stdin: true, args: "IN.trv... [OUT.jsonl]", minArgs: 1, maxArgs: -1,
			summary: "print every row as a JSON object, one per line",
			help:    dumpHelp,
			setup:   dumpCommand,
		},
		{
			name: "inspect", writes: true, args: "IN.trv [OUT.html]", minArgs: 1, maxArgs: 2,
			summary: "write an HTML page showing where a file's bytes are", help: inspectHelp, setup: inspectCommand,
		},
		{
			name: "validate", stdin: true, args: "IN.trv...", minArgs: 1, maxArgs: -1,
			summary: "check a file's structure and every checksum",
			help:    validateHelp,
			setup:   validateCommand,
		},
		{
			name: "version", args: "", minArgs: 0, maxArgs: 0,
			summary: "print the version, the Go release and the codecs built in",
			help:    versionHelp, setup: versionCommand,
		},
		{
			name: "completion", args: "bash|zsh|fish", minArgs: 1, maxArgs: 1,
			summary: "print a shell completion script",
			help:    completionHelp, setup: completionCommand,
		},
		{
			name: "man", args: "", minArgs: 0, maxArgs: 0,
			summary: "print the manual page (roff)",
			help:    manHelp, setup: manCommand,
		},
	}, append(append(tableCommands(), readCommands()...), arrowCommands()...)...)
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
// inputs (README: Limits), for every command that reads or writes data.
type limitFlags struct {
	maxColumns, maxDepth  int
	maxBlock, blockMemory string
}

// noData lists the commands that read no data file, and so take no limit
// flags.
var noData = []string{"version", "completion", "man", "help"}

// addLimitFlags defines the limit flags.
func addLimitFlags(fs *flag.FlagSet, l *limitFlags) {
	fs.IntVar(&l.maxColumns, "max-columns", 0, "allow schemas of up to `N` columns (default 65536)")
	fs.IntVar(&l.maxDepth, "max-depth", 0, "allow types nested up to `N` deep (default 1000)")
	fs.StringVar(&l.maxBlock, "max-block-size", "", "allow Trevni blocks of up to `SIZE` uncompressed (default 64MiB)")
	fs.StringVar(&l.blockMemory, "block-memory", "", "hold up to `SIZE` of Trevni blocks in memory while reading (default 512MiB)")
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
	if c.writes {
		fs.BoolVar(&cf.force, "force", false, "replace an existing output file (never one of the inputs)")
	}
	if !slices.Contains(noData, c.name) {
		addLimitFlags(fs, &cf.limits)
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

// printUsage prints the command's synopsis and flags, for usage errors.
func (c *command) printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n", c.synopsis())
	printFlags(w, fs)
	fmt.Fprintf(w, "Run 'trevni help %s' for details.\n", c.name)
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
// flags; "-" is positional.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
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
output. The reading commands (tojson, schema, meta, dump, validate) read
standard input when no input is named and it is not a terminal.

An existing output file is replaced only with --force, and never when it
is one of the command's inputs (the same file under any name or link).
Output files are written in a temporary directory beside them and renamed
into place only when the command succeeds.

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
		v1Hook(cmd.name, fs) // Trevni version 1's flags: cmd/trevni/v1.go
		cmd.printHelp(a.stdout, fs)
		return exitOK
	}
	fmt.Fprintln(a.stderr, "trevni: help: too many arguments\nusage: trevni help [COMMAND]")
	return exitUsage
}
