package main

import (
	"fmt"
	"strings"

	"github.com/grind-nlp/grind/commands/grindcmd"
)

// roff escapes text for a man page: backslashes, hyphens (which roff
// would print as typographic ones, breaking copied flags) and a line's
// leading dot or quote (a request).
func roff(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// preformatted is text laid out as --help lays it out, line for line.
func preformatted(b *strings.Builder, text string) {
	b.WriteString(".nf\n")
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			b.WriteString(".sp\n")
			continue
		}
		b.WriteString(roff(line) + "\n")
	}
	b.WriteString(".fi\n")
}

func manHeader(b *strings.Builder, name, usage string) {
	fmt.Fprintf(b, ".TH %s 1 \"\" \"grind\" \"grind manual\"\n.SH NAME\n%s \\- %s\n", strings.ToUpper(roff(name)), roff(name), roff(usage))
}

// manPage is a program's man page: what --help says, in sections.
func manPage(d doc) string {
	var b strings.Builder
	manHeader(&b, d.Name, d.Usage)
	synopsis := d.UsageText
	if synopsis == "" {
		synopsis = d.Name + " [options] [FILE...]"
	}
	b.WriteString(".SH SYNOPSIS\n")
	for _, line := range strings.Split(synopsis, "\n") {
		prog, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		fmt.Fprintf(&b, ".B %s\n%s\n.br\n", roff(prog), roff(rest))
	}
	if d.Description != "" {
		b.WriteString(".SH DESCRIPTION\n")
		preformatted(&b, d.Description)
	}
	b.WriteString(".SH OPTIONS\n")
	for _, g := range d.Groups {
		if g.Name != "" {
			fmt.Fprintf(&b, ".SS %s\n", roff(g.Name))
		}
		for _, f := range g.Flags {
			var forms []string
			for _, n := range f.names() {
				form := `\fB` + roff(dashed(n)) + `\fR`
				if f.Value != "" {
					form += ` \fI` + roff(f.Value) + `\fR`
				}
				forms = append(forms, form)
			}
			text := f.Usage
			if f.Default != "" {
				text += " (default: " + f.Default + ")"
			}
			fmt.Fprintf(&b, ".TP\n%s\n%s\n", strings.Join(forms, ", "), roff(text))
		}
	}
	b.WriteString(`.SH EXIT STATUS
.TP
0
success
.TP
1
bad input or a failed run (the message names the file and line)
.TP
2
a bad command line
.TP
3
an internal error: a bug in grind
.SH SEE ALSO
.BR grind (1),
and grind's README, which documents every program.
`)
	return b.String()
}

// grindPage is the man page of the front command: every program, one
// line each.
func grindPage(docs []doc) string {
	var b strings.Builder
	manHeader(&b, "grind", "grammar induction from unannotated text, as small Unix programs")
	b.WriteString(`.SH SYNOPSIS
.B grind
\fIPROGRAM\fR [options] [FILE...]
.br
.B grind help
\fIPROGRAM\fR
.br
.B grind
\-\-version
.SH DESCRIPTION
Each program below is a command of its own;
.B grind PROGRAM
runs it with its flags, files, streams and exit codes, and
.B grind
alone lists them.
.SH PROGRAMS
`)
	byName := map[string]doc{}
	for _, d := range docs {
		byName[d.Name] = d
	}
	for _, s := range grindcmd.Sections {
		fmt.Fprintf(&b, ".SS %s\n", roff(s.Title))
		for _, name := range s.Programs {
			fmt.Fprintf(&b, ".TP\n.BR %s (1)\n%s\n", roff(name), roff(byName[name].Usage))
		}
	}
	return b.String()
}
