package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/schema/protoload/protosrc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

const fromprotoHelp = `
Fromproto converts a stream of protobuf messages to a Trevni file: binary
messages each preceded by its length as a varint (--input delimited, as
Java's writeDelimitedTo and Go's protodelim write them), or protojson, one
message per line (--input json). The message type comes from a descriptor
set (protoc --descriptor_set_out, buf build -o) or from .proto files, which
are compiled without protoc (imports are searched in the -I directories,
and the well-known types are built in). With neither, --message may name
one of the well-known types (google.protobuf.Timestamp, Duration, Struct
and the others), the only types built into the tool.

The file is an ordinary Avro-Trevni file of the Avro schema derived from
the message type (see docs/mappings.md), so tojson and Java read it;
it also stores the message's descriptors, so toproto needs no .proto.

The messages are parsed and shredded on --workers goroutines (one per
core by default), each taking ranges of whole messages (or lines); they
are written in the order of the stream, --memory bounding them all
together, and errors name the message one goroutine would.

Examples (the file names stand for your own):

	trevni fromproto --proto trace.proto -I protos --message opentelemetry.proto.trace.v1.TracesData spans.bin spans.trv
	trevni fromproto --descriptor-set api.pb --message acme.Event --input json events.jsonl events.trv
`

func fromprotoCommand(fs *flag.FlagSet) runFunc {
	descSet := inputFileVar(fs, "descriptor-set", "binary FileDescriptorSet `FILE`")
	protoFile := inputFileVar(fs, "proto", ".proto `FILE` to compile")
	var imports stringList
	fs.Var(&imports, "I", "import `DIR` for --proto (repeatable)")
	message := fs.String("message", "", "full `NAME` of the message type (required)")
	input := fs.String("input", "delimited", "input `FORM`: delimited or json")
	recursion := fs.Int("recursion-limit", 0, "the number `N` of times a message type may recur on a path before the rest is stored as bytes")
	tf := addTrevniFlags(fs)
	workers := addWorkersFlag(fs)
	return func(e *env, ins []string, out *output) error {
		if *message == "" {
			return e.usagef("--message is required")
		}
		if *descSet != "" && *protoFile != "" {
			return e.usagef("give --descriptor-set or --proto, not both")
		}
		var form trevni.Framing
		switch *input {
		case "delimited":
			form = trevni.Delimited
		case "json":
			form = trevni.JSONLines
		default:
			return e.usagef("--input %q: want delimited or json", *input)
		}
		if *recursion < 0 {
			return e.usagef("--recursion-limit must not be negative")
		}
		opts, err := tf.options(e)
		if err != nil {
			return err
		}
		n, err := workers()
		if err != nil {
			return err
		}
		md, err := e.findMessage(*descSet, *protoFile, imports, *message)
		if err != nil {
			return err
		}
		return e.toTrevni(ins[0], out, &opts, func(out io.Writer, in io.Reader, progress func(int64, int64)) (int64, error) {
			// Made here, once toTrevni has set opts.TempDir.
			po := &trevni.ProtoWriteOptions{WriteOptions: *frontWriteOptions(opts, e.limits.layout(), n), RecursionLimit: *recursion, MaxJSONMessage: e.limits.maxRecord}
			po.Progress = progress
			return trevni.ConvertProtoStream(e.ctx, out, in, form, md, po)
		})
	}
}

// findMessage loads the named message type from a descriptor set, from
// .proto files, or from the types linked into the tool: the well-known
// types.
func (e *env) findMessage(descSet, protoFile string, imports []string, name string) (protoreflect.MessageDescriptor, error) {
	var files protoload.DescriptorResolver = protoregistry.GlobalFiles
	switch {
	case descSet != "":
		f, err := protoload.LoadDescriptorSet(descSet)
		if err != nil {
			return nil, fileError(descSet, err)
		}
		files = f
	case protoFile != "":
		dirs := imports
		if len(dirs) == 0 {
			dirs = []string{filepath.Dir(protoFile)}
			protoFile = filepath.Base(protoFile)
		} else if rel, ok := relativeTo(protoFile, dirs); ok {
			protoFile = rel
		}
		f, err := protosrc.CompileProto(e.ctx, dirs, protoFile)
		if err != nil {
			return nil, err
		}
		files = f
	}
	md, err := protoload.FindMessage(files, name)
	if err != nil && descSet == "" && protoFile == "" {
		return nil, fmt.Errorf("%w (give --descriptor-set or --proto)", err)
	}
	return md, err
}

// fileError returns err naming the file at its start, as every message
// of the tool begins, unless it already does.
func fileError(name string, err error) error {
	if strings.HasPrefix(err.Error(), name+":") {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// relativeTo returns path relative to the first import directory holding
// it, as the compiler wants import paths.
func relativeTo(path string, dirs []string) (string, bool) {
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel, true
		}
	}
	return path, false
}

// fromprotoSpec is the command "trevni fromproto".
func fromprotoSpec() *command {
	return &command{
		name: "fromproto", output: lastOutput, args: "IN OUT.trv", minArgs: 2, maxArgs: 2,
		summary: "convert a stream of protobuf messages to Trevni",
		help:    fromprotoHelp, setup: fromprotoCommand,
	}
}
