package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/grindcmd"
	"github.com/grind-nlp/grind/commands/program"
)

// A doc is what the man page and the completions say of a program.
type doc struct {
	Name, Usage, UsageText, Description string
	Groups                              []groupDoc
}

type groupDoc struct {
	Name  string // "" for the program's own flags without a category
	Flags []flagDoc
}

// A flagDoc is one flag: its long name and its aliases, what it takes
// (its placeholder, "" for a switch), what completes that value, what it
// does and its default as --help shows them.
type flagDoc struct {
	Long       string   // the flag's name (one letter for dmv-sample -n)
	Short      []string // one-letter aliases
	Aliases    []string // longer aliases
	Value      string
	Complete   valueKind
	Repeatable bool
	Usage      string
	Default    string
}

type valueKind int

const (
	noValue   valueKind = iota // a switch
	anyValue                   // a number, a name: nothing to complete
	fileValue                  // a file
	dirValue                   // a folder
)

// programs are the docs of every program, in the order grind lists them.
func programs() []doc {
	var docs []doc
	for _, s := range grindcmd.Sections {
		for _, name := range s.Programs {
			docs = append(docs, programDoc(name))
		}
	}
	return docs
}

func programDoc(name string) doc {
	app := program.Prepared(name)
	d := doc{Name: name, Usage: app.Usage, UsageText: app.UsageText, Description: app.Description}
	for _, g := range program.FlagGroups(app) {
		gd := groupDoc{Name: g.Name}
		for _, f := range g.Flags {
			gd.Flags = append(gd.Flags, flagDocOf(f))
		}
		d.Groups = append(d.Groups, gd)
	}
	return d
}

func flagDocOf(f cli.Flag) flagDoc {
	names := f.Names()
	fd := flagDoc{Long: names[0]}
	for _, a := range names[1:] {
		if len(a) == 1 {
			fd.Short = append(fd.Short, a)
		} else {
			fd.Aliases = append(fd.Aliases, a)
		}
	}
	usage := f.(interface{ GetUsage() string }).GetUsage()
	fd.Value, fd.Usage = unquote(usage)
	d := f.(cli.DocGenerationFlag)
	if !d.TakesValue() {
		fd.Value = ""
		return fd
	}
	if fd.Value == "" {
		fd.Value = "value"
	}
	if def := d.GetDefaultText(); def != "" && def != `""` {
		fd.Default = def
	}
	_, fd.Repeatable = f.(*cli.StringSliceFlag)
	takesFile := false
	switch f := f.(type) {
	case *cli.StringFlag:
		takesFile = f.TakesFile
	case *cli.StringSliceFlag:
		takesFile = f.TakesFile
	}
	switch {
	case fd.Value == "DIR":
		fd.Complete = dirValue
	case takesFile || program.IsOutputFlag(fd.Long) || fd.Value == "FILE" || fd.Value == "CORPUS" || fd.Long == "rules":
		fd.Complete = fileValue
	default:
		fd.Complete = anyValue
	}
	return fd
}

// unquote takes the `PLACEHOLDER` out of a flag's usage, as --help does.
func unquote(usage string) (placeholder, text string) {
	before, rest, ok := strings.Cut(usage, "`")
	if !ok {
		return "", usage
	}
	name, after, ok := strings.Cut(rest, "`")
	if !ok {
		return "", usage
	}
	return name, before + name + after
}

// summary is the start of s for a completion menu: up to its first
// clause beyond 30 characters, at most about 80.
func summary(s string) string {
	for _, sep := range []string{"; ", " (", ": "} {
		if i := strings.Index(s[min(30, len(s)):], sep); i >= 0 {
			s = s[:30+i]
		}
	}
	if len(s) > 90 {
		cut := strings.LastIndex(s[:80], " ")
		s = s[:cut] + " …"
	}
	return s
}

// names is every program's name, in the order of docs.
func names(docs []doc) []string {
	var ns []string
	for _, d := range docs {
		ns = append(ns, d.Name)
	}
	return ns
}

// write writes the man pages and completions of docs under dir.
func write(dir string, docs []doc) error {
	files := map[string]string{
		"bash-completion/completions/grind":    bashCompletion(docs),
		"zsh/site-functions/_grind":            zshCompletion(docs),
		"fish/vendor_completions.d/grind.fish": fishGrind(docs),
		"man/man1/grind.1":                     grindPage(docs),
	}
	for _, d := range docs {
		files["man/man1/"+d.Name+".1"] = manPage(d)
		files["fish/vendor_completions.d/"+d.Name+".fish"] = fishCompletion(d)
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	// bash-completion loads a command's completion from the file of its
	// name: every program's is grind's.
	for _, d := range docs {
		link := filepath.Join(dir, "bash-completion/completions", d.Name)
		if err := os.Remove(link); err != nil && !os.IsNotExist(err) {
			return err
		}
		if err := os.Symlink("grind", link); err != nil {
			return err
		}
	}
	return nil
}
