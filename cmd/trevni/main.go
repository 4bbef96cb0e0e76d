package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/trevni-go/trevni/internal/frontdoor"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // the command failed, or found problems
	exitUsage = 2 // the command line is wrong
)

// gracePeriod is how long a run may take to stop after a signal before its
// temporary files are removed and the process exits regardless.
const gracePeriod = time.Second

func main() {
	os.Exit(runMain(os.Args[1:]))
}

// runMain runs the tool as a process. A first SIGINT or SIGTERM cancels the
// run, which then removes its temporary files and returns; if it has not
// done so within gracePeriod (it may be blocked reading a pipe), or on a
// second signal, its temporary files are removed here. The exit status is
// then 128 plus the signal number, unless the run had already succeeded.
func runMain(args []string) int {
	// Profiles of the run, for go tool pprof and for refreshing default.pgo
	// (bench/pgo/refresh.sh), and execution traces, for go tool trace.
	for _, rec := range []struct {
		env   string
		start func(io.Writer) error
		stop  func()
	}{
		{"TREVNI_CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile},
		{"TREVNI_TRACE", trace.Start, trace.Stop},
	} {
		if path := os.Getenv(rec.env); path != "" {
			stop, err := startRecording(path, rec.start, rec.stop)
			if err != nil {
				fmt.Fprintf(os.Stderr, "trevni: %s: %v\n", rec.env, err)
				return exitUsage
			}
			defer stop()
		}
	}
	a := newApp(os.Stdin, os.Stdout, os.Stderr)
	a.tty = isTerminal(os.Stderr)
	a.stdinTTY = isTerminal(os.Stdin)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	done := make(chan int, 1)
	go func() { done <- a.run(ctx, args) }()
	select {
	case code := <-done:
		return code
	case sig := <-sigs:
		cancel()
		status := 128 + 2 // SIGINT
		if s, ok := sig.(syscall.Signal); ok {
			status = 128 + int(s)
		}
		select {
		case code := <-done:
			if code == exitOK {
				return code
			}
		case <-sigs:
			a.abort()
		case <-time.After(gracePeriod):
			a.abort()
		}
		return status
	}
}

// run runs the tool with the given arguments (without the program name) and
// standard streams, and returns the exit status. It never panics and never
// calls os.Exit, so tests can call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newApp(stdin, stdout, stderr).run(context.Background(), args)
}

// app is one invocation of the tool: its standard streams, and the
// temporary files to remove if it is interrupted.
type app struct {
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	tty      bool             // stderr is a terminal: progress may be shown
	stdinTTY bool             // stdin is a terminal: not read unless named "-"
	now      func() time.Time // the clock, for progress

	mu       sync.Mutex
	command  string         // the command running, for messages
	cleanups map[int]func() // undo actions of unfinished outputs and spools
	nextID   int
	aborted  bool
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{stdin: stdin, stdout: stdout, stderr: stderr, now: time.Now, cleanups: map[int]func(){}}
}

// addCleanup registers f to run if the process must stop before the run
// ends, and returns the function that unregisters it. If the app has
// already been aborted, f runs at once.
func (a *app) addCleanup(f func()) (remove func()) {
	a.mu.Lock()
	if a.aborted {
		a.mu.Unlock()
		f()
		return func() {}
	}
	id := a.nextID
	a.nextID++
	a.cleanups[id] = f
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		delete(a.cleanups, id)
		a.mu.Unlock()
	}
}

// abort runs every registered cleanup and reports the interruption. It is
// called from the signal path while the run may still be going on.
func (a *app) abort() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.aborted = true
	for _, f := range a.cleanups {
		f()
	}
	a.cleanups = map[int]func(){}
	if a.command == "" {
		fmt.Fprintln(a.stderr, "trevni: interrupted")
	} else {
		fmt.Fprintf(a.stderr, "trevni: %s: interrupted\n", a.command)
	}
}

// errorf prints a message of the running command on standard error,
// unless the run has been aborted, which has said all there is to say.
func (a *app) errorf(format string, args ...any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.aborted {
		fmt.Fprintf(a.stderr, format, args...)
	}
}

// run parses the command line and runs the command it names.
func (a *app) run(ctx context.Context, args []string) int {
	quiet := false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		switch args[0] {
		case "-h", "-help", "--help":
			a.usage(a.stdout)
			return exitOK
		case "-quiet", "--quiet":
			quiet = true
		case "-version", "--version":
			fmt.Fprint(a.stdout, versionText())
			return exitOK
		default:
			fmt.Fprintf(a.stderr, "trevni: unknown flag %s\nrun 'trevni help' for usage\n", args[0])
			return exitUsage
		}
		args = args[1:]
	}
	if len(args) == 0 {
		a.usage(a.stderr)
		return exitUsage
	}
	if args[0] == "help" {
		return a.help(args[1:])
	}
	cmd := lookupCommand(args[0])
	if cmd == nil {
		fmt.Fprintf(a.stderr, "trevni: unknown command %q\nRun 'trevni help' for the list of commands.\n", args[0])
		return exitUsage
	}
	return a.runCommand(ctx, cmd, args[1:], quiet)
}

// runCommand parses the command's flags and arguments and runs it,
// reporting its error as one line. A panic, which would be a bug, is
// reported the same way.
func (a *app) runCommand(ctx context.Context, cmd *command, args []string, quiet bool) (code int) {
	fs, runFn, cf := cmd.flagSet(quiet)
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		cmd.printHelp(a.stdout, fs)
		return exitOK
	}
	if err == nil && len(pos) == 0 && cmd.stdin && !a.stdinTTY {
		pos = []string{"-"} // trevni tojson < file.trv
	}
	if err == nil {
		err = cmd.checkArgs(pos)
		if err != nil && len(pos) == 0 && cmd.stdin {
			err = fmt.Errorf("%w (standard input is a terminal: name a file, or - to read it anyway)", err)
		}
	}
	if err != nil {
		msg := oneLine(err)
		if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
			msg = "unknown flag " + name
		}
		fmt.Fprintf(a.stderr, "trevni: %s: %s\n", cmd.name, msg)
		cmd.usageHint(a.stderr)
		return exitUsage
	}
	ins, outPath := cmd.splitArgs(pos)
	lim, err := cf.limits.parse()
	if err != nil {
		fmt.Fprintf(a.stderr, "trevni: %s: %s\n", cmd.name, oneLine(err))
		cmd.usageHint(a.stderr)
		return exitUsage
	}
	if cmd.dataset {
		// --http-timeout bounds the requests of a store's listing.
		if ins, err = frontdoor.ExpandNames(ctx, ins, nil, lim.store()); err != nil {
			fmt.Fprintf(a.stderr, "trevni: %s: %s\n", cmd.name, oneLine(limitHint(err)))
			return exitError
		}
	}

	a.mu.Lock()
	a.command = cmd.name
	a.mu.Unlock()
	e := &env{ctx: ctx, app: a, name: cmd.name, quiet: cf.quiet, force: cf.force, limits: lim,
		inputs: append(slices.Clone(ins), inputFiles(fs)...), stdin: a.stdin, stdout: a.stdout, stderr: a.stderr}
	var out *output
	defer func() {
		out.Abort() // nothing after Commit
		if r := recover(); r != nil {
			a.errorf("trevni: %s: internal error: %s\n", cmd.name, oneLine(fmt.Errorf("%v", r)))
			code = exitError
		}
	}()
	// The output is created first, so that a bad output name fails before
	// a large input is read.
	if cmd.output != noOutput && cmd.output != prefixOutput {
		if out, err = e.createOutput(outPath); err != nil {
			a.errorf("trevni: %s: %s\n", cmd.name, oneLine(limitHint(fileFirst(err))))
			return exitError
		}
	}
	err = runFn(e, ins, out)
	if err == nil && out != nil {
		err = out.Commit()
	}
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errReported):
		return exitError
	case errors.As(err, &ue):
		a.errorf("trevni: %s: %s\n", cmd.name, oneLine(err))
		if ue.detail != "" {
			a.errorf("%s\n", ue.detail)
		}
		cmd.usageHint(a.stderr)
		return exitUsage
	case ctx.Err() != nil:
		a.errorf("trevni: %s: interrupted\n", cmd.name)
		return exitError
	}
	a.errorf("trevni: %s: %s\n", cmd.name, oneLine(limitHint(fileFirst(err))))
	return exitError
}

// fileFirst rewrites an error of the os package about one file, "open
// x.trv: no such file or directory", to name the file first, as every
// message of the tool does: "x.trv: cannot open: no such file or
// directory".
func fileFirst(err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe != err {
		return err
	}
	op := pe.Op
	switch op {
	case "open", "read", "write", "stat", "create":
		op = "cannot " + op
	}
	return fmt.Errorf("%s: %s: %w", pe.Path, op, pe.Err)
}

// libraryPackages are the names of the packages of the module and of the
// stores module, with which
// their errors may begin ("ocf: ..."). The prefixes mean nothing to a user
// of the tool, and are removed from its messages.
var libraryPackages = []string{
	"trevni", "format", "codec", "ocf", "assemble", "shred", "schema", "protoschema",
	"layout", "typemap", "protovalue", "avrojson", "avrorand", "protorand", "fieldpath",
	"protoload", "protosafe", "clmn", "csvtable", "trevni1", "stats", "predicate", "jsontext", "avrostruct", "remote", "memtest", "predrand", "rangeserver", "utf8check", "convert", "avrobin", "atomicfile", "layers", "budget", "limitfile", "trevniarrow", "trevniparquet", "plainjson", "ordered", "objstore", "s3server", "gcs", "gcsserver", "faulthttp", "stallhttp", "veclarge", "shortval", "rowtasks",
	"store", "s3", "gs", "azblob", "protosrc", "frontdoor", "protoset", "httpread", "coltype", "levels", "ocfsource", "ducktest", "longtest", "prototest", "procserver",
}

// maxMessage bounds the length of one message in bytes: an error from a
// deeply nested input could otherwise be tens of kilobytes long. The head
// (what went wrong, where) and the tail (the innermost cause) are kept.
const (
	maxMessage  = 1024
	messageHead = 640
	messageTail = 320
)

// oneLine formats err for a one-line message: without the package prefixes
// ("trevni: ", "ocf: ") that the library's errors carry (the message has
// its own), with line breaks replaced by spaces, a part repeated by two
// layers said once, and cut in the middle if it is longer than maxMessage
// bytes.
func oneLine(err error) string {
	s := err.Error()
	for _, p := range libraryPackages {
		s = strings.TrimPrefix(s, p+": ")
		s = strings.ReplaceAll(s, ": "+p+": ", ": ")
	}
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }), " ")
	// Two layers that both said the same ("not a valid trevni file: not
	// a valid trevni file: ...") say it once.
	parts := strings.Split(s, ": ")
	parts = slices.CompactFunc(parts, func(a, b string) bool { return a == b && a != "" })
	return capMessage(strings.Join(parts, ": "))
}

// capMessage cuts the middle out of s if it is longer than maxMessage
// bytes, at character boundaries, saying how much was cut.
func capMessage(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	head, tail := messageHead, len(s)-messageTail
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return fmt.Sprintf("%s ... [%d bytes cut] ... %s", s[:head], tail-head, s[tail:])
}

// errReported is returned by a command that has already reported its
// problems with env.report: it exits with status 1 and prints nothing more.
var errReported = errors.New("problems reported")

// usageError is a command-line mistake found by a command: it is reported
// with the command's usage and exit status 2.
type usageError struct {
	msg    string
	detail string // printed under the message as is (a --where expression and its caret)
}

func (e *usageError) Error() string { return e.msg }

// startRecording creates path and starts a CPU profile or an execution
// trace into it with start; the returned function ends it with stop and
// closes the file.
func startRecording(path string, start func(io.Writer) error, stop func()) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		stop()
		f.Close()
	}, nil
}
