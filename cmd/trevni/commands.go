package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
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
	return []*command{
		{
			name: "fromavro", args: "IN.avro... OUT.trv", minArgs: 2, maxArgs: -1,
			summary: "convert an Avro container file to Trevni",
			help:    fromavroHelp, setup: fromavroCommand,
		},
		{
			name: "toavro", args: "IN.trv OUT.avro", minArgs: 2, maxArgs: 2,
			summary: "convert a Trevni file back to an Avro container file",
			help:    toavroHelp, setup: toavroCommand,
		},
		{
			name: "tojson", args: "IN.trv [OUT.jsonl]", minArgs: 1, maxArgs: 2,
			summary: "print records as Avro JSON, one per line",
			help:    tojsonHelp, setup: tojsonCommand,
		},
		{
			name: "fromjson", args: "IN.jsonl OUT.trv", minArgs: 2, maxArgs: 2,
			summary: "convert Avro JSON lines to Trevni",
			help:    fromjsonHelp, setup: fromjsonCommand,
		},
		{
			name: "fromproto", args: "IN OUT.trv", minArgs: 2, maxArgs: 2,
			summary: "convert a stream of protobuf messages to Trevni",
			help:    fromprotoHelp, setup: fromprotoCommand,
		},
		{
			name: "toproto", args: "IN.trv OUT", minArgs: 2, maxArgs: 2,
			summary: "convert a Trevni file made from protobuf back to messages",
			help:    toprotoHelp, setup: toprotoCommand,
		},
		{
			name: "random", args: "SCHEMA.avsc COUNT OUT.trv", minArgs: 3, maxArgs: 3,
			summary: "write random records of an Avro schema",
			help:    randomHelp, setup: randomCommand,
		},
		{
			name: "schema", args: "IN.trv [OUT.avsc]", minArgs: 1, maxArgs: 2,
			summary: "print the Avro schema stored in a file",
			help:    schemaHelp, setup: schemaCommand,
		},
		{
			name: "meta", args: "IN.trv [OUT.json]", minArgs: 1, maxArgs: 2,
			summary: "print a file's metadata, columns and block descriptors as JSON",
			help:    metaHelp,
			setup:   metaCommand,
		},
		{
			name: "dump", args: "IN.trv [OUT.jsonl]", minArgs: 1, maxArgs: 2,
			summary: "print every row as a JSON object, one per line",
			help:    dumpHelp,
			setup:   dumpCommand,
		},
		{
			name: "validate", args: "IN.trv", minArgs: 1, maxArgs: 1,
			summary: "check a file's structure and every checksum",
			help:    validateHelp,
			setup:   validateCommand,
		},
	}
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

// flagSet returns a new flag set holding the command's flags, and the
// function that runs the command with them.
func (c *command) flagSet() (*flag.FlagSet, runFunc) {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs, c.setup(fs)
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

// printUsage prints the command's synopsis and flags, for usage errors.
func (c *command) printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: trevni %s [flags] %s\n", c.name, c.args)
	printFlags(w, fs)
	fmt.Fprintf(w, "Run 'trevni help %s' for details.\n", c.name)
}

// printHelp prints the command's full description.
func (c *command) printHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: trevni %s [flags] %s\n\n", c.name, c.args)
	fmt.Fprintln(w, strings.TrimSpace(c.help))
	fmt.Fprintln(w)
	printFlags(w, fs)
}

// printFlags lists the flags of fs, with two dashes.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "Flags:")
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		flagName := "--" + f.Name
		if name != "" {
			flagName += " " + name
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  %-18s %s\n", flagName, usage)
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

// usage prints the tool's usage and its list of commands.
func (a *app) usage(w io.Writer) {
	fmt.Fprint(w, `Trevni reads, checks and converts Trevni column files.

usage: trevni COMMAND [flags] ARGS

Commands:
`)
	for _, c := range commandTable() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  %-10s %s\n", "help", "explain a command: trevni help COMMAND")
	fmt.Fprint(w, `
Every command takes --quiet (no progress on standard error) and -h.
A file argument of "-" means standard input or standard output.
Exit status: 0 success, 1 error or problems found, 2 usage error,
128+N killed by signal N (SIGINT, SIGTERM).
`)
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
		fs, _ := cmd.flagSet()
		v1Hook(cmd.name, fs) // Trevni version 1's flags: cmd/trevni/v1.go
		fs.Bool("quiet", false, "show no progress")
		cmd.printHelp(a.stdout, fs)
		return exitOK
	}
	fmt.Fprintln(a.stderr, "trevni: help: too many arguments\nusage: trevni help [COMMAND]")
	return exitUsage
}
