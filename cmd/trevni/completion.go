package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

const completionHelp = `
Completion prints a script that makes the shell complete trevni's
commands, flags, the values of flags that take one of a few words
(--codec, --checksum, --input, --output) and file names. It is made from
the same command table and flag definitions as the help, so it lists
exactly what the tool accepts.

Examples (the file names stand for your own):

	source <(trevni completion bash)          # in ~/.bashrc
	trevni completion zsh > "${fpath[1]}/_trevni"
	trevni completion fish > ~/.config/fish/completions/trevni.fish
`

const manHelp = `
Man prints trevni's manual page in roff, made from the same text as the
help of every command, with its flags.

Examples (the file names stand for your own):

	trevni man | man -l -
	trevni man > /usr/local/share/man/man1/trevni.1
`

// Words some flags take, for completion and for their checks.
var (
	checksumNames = []string{"null", "crc32"}
	protoForms    = []string{"delimited", "json"}
)

// flagInfo describes one flag of a command for completion and the manual.
type flagInfo struct {
	typed   string   // as typed: "--codec", "-I"
	long    bool     // two dashes
	name    string   // without dashes
	value   string   // the value's name ("FILE"), or "" for a boolean flag
	usage   string   // the description, with its default
	choices []string // the words the value may be, if few
}

// commandFlags lists the flags of c, as its flag set defines them.
func commandFlags(c *command) []flagInfo {
	fs, _, _ := c.flagSet(false)
	var flags []flagInfo
	fs.VisitAll(func(f *flag.Flag) {
		value, _ := flag.UnquoteUsage(f)
		_, usage := flagSynopsis(f)
		fi := flagInfo{typed: flagName(f), long: len(f.Name) > 1, name: f.Name, value: value, usage: usage}
		switch f.Name {
		case "codec":
			codecs := trevniCodecs
			if c.name == "toavro" {
				codecs = avroCodecs
			}
			for _, n := range codecs {
				fi.choices = append(fi.choices, n)
				fi.choices = append(fi.choices, codecAliases[n]...)
			}
		case "checksum":
			fi.choices = checksumNames
		case "input", "output":
			fi.choices = protoForms
		case "format":
			if c.name == "columns" {
				fi.choices = columnsForms()
			}
		}
		flags = append(flags, fi)
	})
	return flags
}

// completionCommand sets up "trevni completion".
func completionCommand(fs *flag.FlagSet) runFunc {
	return func(e *env, ins []string, out *output) error {
		switch ins[0] {
		case "bash":
			writeBash(e.stdout)
		case "zsh":
			writeZsh(e.stdout)
		case "fish":
			writeFish(e.stdout)
		default:
			return e.usagef("unknown shell %q (want bash, zsh or fish)", ins[0])
		}
		return nil
	}
}

// allCommands lists the names of the commands, help included.
func allCommands() []string {
	var names []string
	for _, c := range commandTable() {
		names = append(names, c.name)
	}
	return append(names, "help")
}

// globalFlags are the flags taken before the command's name.
var globalFlags = []string{"--quiet", "--version", "--help"}

func writeBash(w io.Writer) {
	fmt.Fprintf(w, `# bash completion for trevni; made by "trevni completion bash".
# Load it with: source <(trevni completion bash)
_trevni() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local cmd="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -*) ;;
            *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W %s -- "$cur"))
        return
    fi
    local flags="" files=1
    case $cmd in
`, shellQuote(strings.Join(append(allCommands(), globalFlags...), " ")))
	for _, c := range commandTable() {
		flags := commandFlags(c)
		var typed []string
		for _, f := range flags {
			typed = append(typed, f.typed)
		}
		fmt.Fprintf(w, "        %s)\n            flags=%s\n", c.name, shellQuote(strings.Join(typed, " ")))
		if c.name == "completion" {
			fmt.Fprintf(w, "            files=0; [[ $cur != -* ]] && COMPREPLY=($(compgen -W 'bash zsh fish' -- \"$cur\")) && return\n")
		}
		fmt.Fprintf(w, "            case $prev in\n")
		for _, f := range flags {
			switch {
			case f.value == "":
			case len(f.choices) > 0:
				fmt.Fprintf(w, "                %s) COMPREPLY=($(compgen -W %s -- \"$cur\")); return ;;\n", f.typed, shellQuote(strings.Join(f.choices, " ")))
			case strings.Contains(f.value, "DIR"):
				fmt.Fprintf(w, "                %s) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n", f.typed)
			case strings.Contains(f.value, "FILE"):
				fmt.Fprintf(w, "                %s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", f.typed)
			default:
				fmt.Fprintf(w, "                %s) return ;;\n", f.typed)
			}
		}
		fmt.Fprintf(w, "            esac ;;\n")
	}
	fmt.Fprintf(w, `        help)
            COMPREPLY=($(compgen -W %s -- "$cur"))
            return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    elif ((files)); then
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -o bashdefault -F _trevni trevni
`, shellQuote(strings.Join(allCommands(), " ")))
}

// shellQuote quotes s for bash and zsh, in single quotes.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// zshDescription escapes a description for _arguments' [...] and
// _describe's NAME:DESCRIPTION.
func zshDescription(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, ":", `\:`).Replace(s)
}

func writeZsh(w io.Writer) {
	fmt.Fprintf(w, "#compdef trevni\n# zsh completion for trevni; made by \"trevni completion zsh\".\n")
	fmt.Fprintf(w, "# Put it in a directory of $fpath as _trevni.\n_trevni() {\n    local -a commands\n    commands=(\n")
	for _, c := range commandTable() {
		fmt.Fprintf(w, "        %s\n", shellQuote(c.name+":"+zshDescription(c.summary)))
	}
	fmt.Fprintf(w, "        %s\n    )\n", shellQuote("help:explain a command"))
	fmt.Fprintf(w, `    if (( CURRENT == 2 )); then
        _describe -t commands 'trevni command' commands
        _arguments '--quiet[show no progress]' '--version[print the version]' '--help[show the usage]'
        return
    fi
    local cmd=$words[2]
    shift words
    (( CURRENT-- ))
    case $cmd in
`)
	for _, c := range commandTable() {
		fmt.Fprintf(w, "        %s)\n            _arguments", c.name)
		for _, f := range commandFlags(c) {
			spec := f.typed + "[" + zshDescription(f.usage) + "]"
			switch {
			case f.value == "":
			case len(f.choices) > 0:
				spec += ":" + strings.ToLower(f.value) + ":(" + strings.Join(f.choices, " ") + ")"
			case strings.Contains(f.value, "DIR"):
				spec += ":" + strings.ToLower(f.value) + ":_files -/"
			case strings.Contains(f.value, "FILE"):
				spec += ":" + strings.ToLower(f.value) + ":_files"
			default:
				spec += ":" + strings.ToLower(f.value) + ": "
			}
			if f.name == "I" {
				spec = "*" + spec // repeatable
			}
			fmt.Fprintf(w, " \\\n                %s", shellQuote(spec))
		}
		if c.name == "completion" {
			fmt.Fprintf(w, " \\\n                ':shell:(bash zsh fish)' ;;\n")
		} else if c.maxArgs != 0 {
			fmt.Fprintf(w, " \\\n                '*:file:_files' ;;\n")
		} else {
			fmt.Fprintf(w, " ;;\n")
		}
	}
	fmt.Fprintf(w, "        help)\n            _describe -t commands 'trevni command' commands ;;\n    esac\n}\n_trevni \"$@\"\n")
}

// fishQuote quotes s for fish, in single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

func writeFish(w io.Writer) {
	fmt.Fprintf(w, "# fish completion for trevni; made by \"trevni completion fish\".\n")
	fmt.Fprintf(w, "# Put it in ~/.config/fish/completions/trevni.fish.\ncomplete -c trevni -f\n")
	for _, c := range commandTable() {
		fmt.Fprintf(w, "complete -c trevni -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	fmt.Fprintf(w, "complete -c trevni -n __fish_use_subcommand -a help -d 'explain a command'\n")
	fmt.Fprintf(w, "complete -c trevni -n __fish_use_subcommand -l quiet -d 'show no progress'\n")
	fmt.Fprintf(w, "complete -c trevni -n __fish_use_subcommand -l version -d 'print the version'\n")
	fmt.Fprintf(w, "complete -c trevni -n '__fish_seen_subcommand_from help' -a %s\n", fishQuote(strings.Join(allCommands(), " ")))
	for _, c := range commandTable() {
		cond := fishQuote("__fish_seen_subcommand_from " + c.name)
		for _, f := range commandFlags(c) {
			opt := "-l " + f.name
			if !f.long {
				opt = "-s " + f.name
			}
			line := fmt.Sprintf("complete -c trevni -n %s %s -d %s", cond, opt, fishQuote(f.usage))
			switch {
			case f.value == "":
			case len(f.choices) > 0:
				line += " -x -a " + fishQuote(strings.Join(f.choices, " "))
			case strings.Contains(f.value, "DIR"):
				line += " -x -a '(__fish_complete_directories)'"
			case strings.Contains(f.value, "FILE"):
				line += " -r -F"
			default:
				line += " -x"
			}
			fmt.Fprintln(w, line)
		}
		switch {
		case c.name == "completion":
			fmt.Fprintf(w, "complete -c trevni -n %s -a 'bash zsh fish'\n", cond)
		case c.maxArgs != 0:
			fmt.Fprintf(w, "complete -c trevni -n %s -F\n", cond)
		}
	}
}

// manCommand sets up "trevni man".
func manCommand(fs *flag.FlagSet) runFunc {
	return func(e *env, ins []string, out *output) error {
		writeMan(e.stdout)
		return nil
	}
}

// roff escapes text for roff: backslashes, and a line that would start
// with a control character.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}

// writeRoffText writes help text: paragraphs as filled text, indented
// lines (examples) as they are.
func writeRoffText(w io.Writer, text string) {
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		lines := strings.Split(para, "\n")
		if slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "\t") }) {
			fmt.Fprintln(w, ".PP\n.RS 4\n.nf")
			for _, l := range lines {
				fmt.Fprintln(w, roff(strings.TrimPrefix(l, "\t")))
			}
			fmt.Fprintln(w, ".fi\n.RE")
			continue
		}
		fmt.Fprintf(w, ".PP\n%s\n", roff(para))
	}
}

func writeMan(w io.Writer) {
	fmt.Fprintln(w, `.TH TREVNI 1 "" "trevni" "User Commands"`)
	fmt.Fprintf(w, ".SH NAME\ntrevni \\- %s\n", roff(toolPurpose))
	fmt.Fprintln(w, ".SH SYNOPSIS\n.B trevni\n.I COMMAND\n.RI [ flags ]\n.I ARGS\n.br\n.B trevni \\-\\-version")
	fmt.Fprintf(w, ".SH DESCRIPTION\n%s\n", roff(toolSummary))
	fmt.Fprintln(w, ".PP\nThe commands:")
	for _, c := range commandTable() {
		fmt.Fprintf(w, ".TP 12\n.B %s\n%s\n", c.name, roff(c.summary))
	}
	fmt.Fprintf(w, ".TP 12\n.B help\nexplain a command: trevni help COMMAND\n")
	writeRoffText(w, toolNotes)
	fmt.Fprintln(w, ".SH COMMANDS")
	for _, c := range commandTable() {
		fmt.Fprintf(w, ".SS \"%s\"\n", roff(c.synopsis()))
		writeRoffText(w, c.help)
		fmt.Fprintln(w, ".PP\nFlags:")
		for _, f := range commandFlags(c) {
			if f.value != "" {
				fmt.Fprintf(w, ".TP\n.BI \"%s \" %s\n", roff(f.typed), roff(f.value))
			} else {
				fmt.Fprintf(w, ".TP\n.B %s\n", roff(f.typed))
			}
			fmt.Fprintf(w, "%s\n", roff(f.usage))
		}
	}
	fmt.Fprintln(w, ".SH EXIT STATUS\n.TP\n0\nsuccess\n.TP\n1\nthe command failed, or validate found problems\n.TP\n2\nusage error: unknown command or flag, wrong arguments\n.TP\n128+N\ninterrupted by signal N: 130 for SIGINT, 143 for SIGTERM")
	fmt.Fprintln(w, ".SH SEE ALSO\nThe README and docs/ of github.com/trevni\\-go/trevni.")
}

// completionSpec is the command "trevni completion".
func completionSpec() *command {
	return &command{
		name: "completion", args: "bash|zsh|fish", minArgs: 1, maxArgs: 1,
		summary: "print a shell completion script",
		help:    completionHelp, setup: completionCommand,
	}
}

// manSpec is the command "trevni man".
func manSpec() *command {
	return &command{
		name: "man", args: "", minArgs: 0, maxArgs: 0,
		summary: "print the manual page (roff)",
		help:    manHelp, setup: manCommand,
	}
}
