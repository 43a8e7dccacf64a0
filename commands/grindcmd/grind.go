// Package grindcmd is the front command grind: it lists grind's
// programs, one line each, and runs "grind PROGRAM …" as PROGRAM itself,
// in-process — every program is registered here — so that one command
// reaches them all, and the generator of completions and man pages
// (internal/gendocs) sees them all. Each program is also a binary of its
// own (cmd/NAME), which carries only its own code.
package grindcmd

import (
	"fmt"
	"io"
	"os"

	"github.com/grind-nlp/grind/commands/program"

	_ "github.com/grind-nlp/grind/commands" // the programs, registered by their packages' init
	_ "github.com/grind-nlp/grind/commands/cecmd"
	_ "github.com/grind-nlp/grind/commands/plotcmd"
	_ "github.com/grind-nlp/grind/commands/reportcmd"
	_ "github.com/grind-nlp/grind/commands/stepcmd"
)

// Sections are the programs in the order of an experiment, for the
// listing (TestSections: every registered program once).
var Sections = []struct {
	Title    string
	Programs []string
}{
	{"Treebanks and corpora", []string{"ptbstrip", "ptb2deps", "conll2deps", "deps2conll", "tagged2sents", "filterlen", "tagmap", "split-corpus"}},
	{"Dependency grammars (the DMV)", []string{"dmv-init", "estep", "sumcounts", "mstep", "train-em", "train-da", "train-sa", "train-ce", "nbhd", "ce-step", "dmv-sample", "induce"}},
	{"Constituents (the CCM, DMV+CCM)", []string{"train-ccm"}},
	{"Tags and word classes", []string{"train-hmm", "tag", "train-classes", "tag-classes"}},
	{"Decoding, scoring, reports", []string{"decode", "baseline", "score", "score-tags", "select-model", "showtree", "plotcurve", "report"}},
}

// Main runs grind on the process's arguments.
func Main() int {
	if name, ok := dispatched(os.Args); ok {
		return program.MainArgs(name, os.Args[1:])
	}
	return Run(os.Args, os.Stdin, os.Stdout, os.Stderr)
}

// dispatched is the program "grind PROGRAM …" runs.
func dispatched(args []string) (string, bool) {
	if len(args) < 2 || program.App(args[1]) == nil {
		return "", false
	}
	return args[1], true
}

// Run is grind itself, on everything but a program to run: the listing,
// help PROGRAM, --version, and a name that is no program's (exit 2).
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if name, ok := dispatched(args); ok {
		return program.Run(name, args[1:], stdin, stdout, stderr)
	}
	if len(args) < 2 {
		list(stdout)
		return program.ExitOK
	}
	switch a := args[1]; {
	case a == "--help" || a == "-h" || a == "help" && len(args) == 2:
		list(stdout)
		return program.ExitOK
	case a == "help":
		if program.App(args[2]) == nil {
			return noProgram(stderr, args[2])
		}
		return program.Run(args[2], []string{args[2], "--help"}, stdin, stdout, stderr)
	case a == "--version" || a == "-V" || a == "-v":
		io.WriteString(stdout, program.Version("grind"))
		return program.ExitOK
	}
	return noProgram(stderr, args[1])
}

func noProgram(stderr io.Writer, name string) int {
	msg := fmt.Sprintf("grind: no program named %q", name)
	if near := program.Nearest(name, program.Names()); near != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	fmt.Fprintf(stderr, "%s\nRun 'grind --help' for the list of programs.\n", msg)
	return program.ExitUsage
}

// list writes the usage and every program with its one line.
func list(w io.Writer) {
	width := 0
	for _, name := range program.Names() {
		width = max(width, len(name))
	}
	fmt.Fprintf(w, `grind: grammar induction from unannotated text, as small Unix programs

Usage:
   grind PROGRAM [options] [FILE...]   run PROGRAM (each is also a command of its own)
   grind help PROGRAM                  PROGRAM's flags and examples (PROGRAM --help)
   grind --version                     grind's version, commit, Go release and E-step kernels
`)
	for _, s := range Sections {
		fmt.Fprintf(w, "\n%s:\n", s.Title)
		for _, name := range s.Programs {
			fmt.Fprintf(w, "   %-*s  %s\n", width, name, program.App(name).Usage)
		}
	}
}
