// Package commands holds the command lines of grind's programs: one file
// per program, each building a urfave/cli App that parses flags and calls
// one stage, registered with commands/program, which runs it.
// cmd/<name>/main.go imports the package that registers its program and
// calls program.Main. estep, mstep and sumcounts are in commands/stepcmd,
// train-ce and ce-step (commands/cecmd), plotcurve and report in packages
// of their own, so that each
// binary carries only the code its program needs.
package commands

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline"
)

// encodingFlag is the treebank readers' --encoding.
func encodingFlag() cli.Flag {
	return &cli.StringFlag{Name: "encoding", Value: "utf-8", Usage: "the inputs' `ENCODING`: utf-8 (other bytes are an error) or latin1 (ISO-8859-1, converted to UTF-8)"}
}

// treebankSource is source with the inputs' --encoding.
func treebankSource(c *cli.Context) (pipeline.Source, error) {
	src := program.Source(c)
	switch strings.ToLower(c.String("encoding")) {
	case "utf-8", "utf8":
	case "latin1", "latin-1", "iso-8859-1":
		src.Latin1 = true
	default:
		return src, program.Usagef("--encoding must be utf-8 or latin1, not %q", c.String("encoding"))
	}
	return src, nil
}
