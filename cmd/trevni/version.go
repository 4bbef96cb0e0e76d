package main

import (
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

const versionHelp = `
Version prints the tool's version: the module's version as the build
recorded it (the tag given to go install, or "(devel)" for a build from a
checkout, then with its commit when the build knows it), the Go release
it was built with, and the codecs built in, by the names --codec takes.
"trevni --version" prints the same.

Examples:

	trevni version
	trevni --version
`

// versionCommand sets up "trevni version".
func versionCommand(fs *flag.FlagSet) runFunc {
	return func(e *env, ins []string, out *output) error {
		_, err := fmt.Fprint(e.stdout, versionText())
		return err
	}
}

// libraryModule is the path of the library's module.
const libraryModule = "github.com/trevni-go/trevni"

// versionText describes the build: module, version and commit, Go
// release, and codecs.
func versionText() string {
	var b strings.Builder
	// The version shown is the library's (the module of the format, the
	// front door and the bridges), which the command's own module
	// requires: the command is a module apart so that library users do
	// not get its dependencies.
	module, version := libraryModule, "(unknown)"
	var settings []debug.BuildSetting
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range append([]*debug.Module{&bi.Main}, bi.Deps...) {
			if m.Path != libraryModule {
				continue
			}
			if m.Replace != nil && m.Replace.Version != "" {
				version = m.Replace.Version
			} else if m.Version != "" {
				version = m.Version
			}
		}
		settings = bi.Settings
	}
	fmt.Fprintf(&b, "trevni %s (module %s)\n", version, module)
	var rev, when string
	modified := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" {
		fmt.Fprintf(&b, "commit %s", rev)
		if when != "" {
			fmt.Fprintf(&b, " of %s", when)
		}
		if modified {
			b.WriteString(", with local changes")
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "built with %s for %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "Trevni codecs: %s\n", strings.Join(trevniCodecs, ", "))
	fmt.Fprintf(&b, "Avro codecs: %s\n", strings.Join(avroCodecs, ", "))
	b.WriteString("(zstd and zstandard name the same codec and are accepted on either side)\n")
	return b.String()
}

// versionSpec is the command "trevni version".
func versionSpec() *command {
	return &command{
		name: "version", args: "", minArgs: 0, maxArgs: 0,
		summary: "print the version, the Go release and the codecs built in",
		help:    versionHelp, setup: versionCommand,
	}
}
