package stepcmd

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/families"
	"github.com/grind-nlp/grind/stages/sumcounts"
)

func init() { program.Register("sumcounts", sumcountsApp) }

func sumcountsApp() *cli.App {
	return &cli.App{
		Usage:     "add count shards",
		UsageText: "sumcounts [options] [COUNTS...]",
		Description: `Reads count streams (files in order, or stdin) and writes one shard: every
event's counts added, the stats records summed, one header. Every shard is
checked: one cut short, lost mid-stream, repeated or of another model is an
error naming file and line. --expect-corpus also catches a whole shard lost.

Examples:
   sumcounts shard-*.counts | mstep > next.jsonl
   parallel --pipe -N 1000 estep -m model.jsonl < corpus.jsonl | sumcounts > counts.jsonl`,
		Flags: []cli.Flag{program.ExpectCorpusFlag(), program.MaxMemoryFlag(), program.OutputFlag(), program.QuietFlag()},
		Action: func(c *cli.Context) error {
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error { return sumcounts.Run(families.All, src, w, c.String("expect-corpus"), limit) })
		},
	}
}
