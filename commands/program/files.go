package program

import (
	"os"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/pipeline"
)

// What a run reads and writes is checked before it starts, by one
// function for every program (CheckFiles): no output may be one of the
// run's inputs, nor another of its outputs. Run checks the files a
// program's flags name; a program that writes files its flags do not
// name (a trainer's saved models and run directory, split-corpus's parts)
// checks them with its flags' files by calling CheckFiles itself.

// outputFlags are the flags that name a file a program writes (-o last:
// messages name the side file first, "--log and -o both name m.jsonl").
var outputFlags = []string{"log", "save-model", "best", "report", "output"}

// IsOutputFlag says whether the flag name names a file a program writes.
func IsOutputFlag(name string) bool { return slices.Contains(outputFlags, name) }

// Files are what one run reads and writes.
type Files struct {
	Inputs  []string // files read; "-" is stdin
	Outputs []Output
}

// An Output is a file a run writes, or with Match the files it writes in
// a folder.
type Output struct {
	Flag string // how messages name it: "-o", "--log"
	Path string
	// Match, when not nil, makes Path a folder and the output every file
	// of it whose name Match accepts (the models --save-dir receives).
	Match func(name string) bool
}

// readFirst are the input flags (program/flag) a program reads whole
// before it writes anything, so that an output may replace them: mstep
// --vb's -m, the model the counts' E-step ran on (read for the bound),
// which the shell loop `estep -m M | mstep --vb -m M -o M` replaces as
// `estep -m M | mstep -o M` does.
var readFirst = map[string]bool{"mstep/model": true}

// FlagFiles are the files c's flags and arguments name: the arguments
// (stdin when there are none) and every flag marked TakesFile are
// inputs (but readFirst's); -o, --log, --save-model and --best are
// outputs.
func FlagFiles(c *cli.Context) Files {
	f := Files{Inputs: slices.Clone(c.Args().Slice())}
	if len(f.Inputs) == 0 {
		f.Inputs = append(f.Inputs, "-")
	}
	for _, fl := range c.App.Flags {
		name := fl.Names()[0]
		if !c.IsSet(name) {
			continue
		}
		switch fl := Unwrap(fl).(type) {
		case *cli.StringFlag:
			if fl.TakesFile && !readFirst[c.App.Name+"/"+name] {
				f.Inputs = append(f.Inputs, c.String(name))
			}
		case *cli.StringSliceFlag:
			if fl.TakesFile {
				f.Inputs = append(f.Inputs, c.StringSlice(name)...)
			}
		}
	}
	for _, name := range outputFlags {
		if path := c.String(name); path != "" && path != "-" {
			f.Outputs = append(f.Outputs, Output{Flag: flagName(name), Path: path})
		}
	}
	return f
}

// flagName is a flag as a message names it: -o, --log.
func flagName(name string) string {
	if name == "output" {
		return "-o"
	}
	return "--" + name
}

// CheckFiles refuses (a usage error) a run one of whose outputs is one of
// its inputs — compared as files, not names: a link, a hard link, another
// spelling of the name, standard input redirected from it — or whose two
// outputs are one file, whether or not it exists yet. FIFOs and devices
// (/dev/null) are written through, not replaced, and are not checked.
func CheckFiles(c *cli.Context, f Files) error {
	var inputs []pipeline.FileKey
	var inputNames []string
	for _, in := range f.Inputs {
		var k pipeline.FileKey
		if in == "-" {
			file, ok := c.App.Reader.(*os.File)
			if !ok {
				continue
			}
			if k, ok = pipeline.KeyOfFile(file); !ok {
				continue
			}
			in = pipeline.StdinName
		} else {
			k = pipeline.KeyOf(in)
		}
		if k.Exists() && !k.Stream() {
			inputs, inputNames = append(inputs, k), append(inputNames, in)
		}
	}
	type placed struct {
		Output
		key pipeline.FileKey
	}
	var outs []placed
	for _, o := range f.Outputs {
		k := pipeline.KeyOf(o.Path)
		if k.Stream() {
			continue
		}
		if o.Match != nil {
			for i, in := range f.Inputs {
				if in != "-" && pipeline.InDir(in, k, o.Match) {
					return Usagef("%s %s would overwrite the input %s (its files are named like it); write elsewhere", o.Flag, o.Path, f.Inputs[i])
				}
			}
		} else {
			for i, in := range inputs {
				if !k.Same(in) {
					continue
				}
				switch inputNames[i] {
				case o.Path:
					return Usagef("%s %s is an input of this run; it would be overwritten", o.Flag, o.Path)
				case pipeline.StdinName:
					return Usagef("%s %s is this run's standard input; it would be overwritten", o.Flag, o.Path)
				}
				return Usagef("%s %s is an input of this run (the file %s); it would be overwritten", o.Flag, o.Path, inputNames[i])
			}
		}
		for _, prev := range outs {
			if err := clash(prev.Output, prev.key, o, k); err != nil {
				return err
			}
		}
		outs = append(outs, placed{o, k})
	}
	return nil
}

// clash refuses two outputs that would write one file.
func clash(a Output, ka pipeline.FileKey, b Output, kb pipeline.FileKey) error {
	if a.Match != nil && b.Match == nil {
		a, ka, b, kb = b, kb, a, ka
	}
	switch {
	case a.Match == nil && b.Match == nil && ka.Same(kb):
		return Usagef("%s and %s both name %s", a.Flag, b.Flag, b.Path)
	case a.Match == nil && b.Match != nil && pipeline.InDir(a.Path, kb, b.Match):
		return Usagef("%s %s is named like the files %s %s writes; write it elsewhere", a.Flag, a.Path, b.Flag, b.Path)
	case a.Match != nil && ka.Same(kb):
		return Usagef("%s and %s both name %s", a.Flag, b.Flag, b.Path)
	}
	return nil
}

// checkFlagFiles makes every program's action begin with CheckFiles on
// the files its flags name.
func checkFlagFiles(app *cli.App) {
	action := app.Action
	if action == nil {
		return
	}
	app.Action = func(c *cli.Context) error {
		if err := CheckFiles(c, FlagFiles(c)); err != nil {
			return err
		}
		return action(c)
	}
}
