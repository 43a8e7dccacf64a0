package commands

import (
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/stages/nbhd"
)

func init() { program.Register("nbhd", nbhdApp) }

func nbhdApp() *cli.App {
	return &cli.App{
		Usage:     "write the neighbourhood lattice of every sentence (contrastive estimation)",
		UsageText: "nbhd --kind KIND [options] [FILE...]",
		Description: `Reads sentences and writes, for each, the set of tag strings contrastive
estimation compares it with — its neighbourhood, which holds the sentence
itself — as a lattice record: an acyclic automaton over tags whose states are
numbered in topological order, determinised and minimised, so that each
string is spelled by exactly one path from start to a final state.
   {"id":"s1","tags":["DT","NN"],"nbhd":"trans1","states":4,"start":0,"final":[3],"arcs":[[0,1,"DT"],[0,2,"NN"],[1,3,"NN"],[2,3,"DT"]]}

Kinds (Smith 2006):
   trans1         the sentence and each swap of two adjacent tags
   del1           the sentence and each deletion of one tag
   del1ortrans1   their union (Smith's best for English)
   dynasearch     any set of non-overlapping adjacent swaps
   trans2         at most two adjacent swaps, which may overlap
   del1ortrans2   del1 ∪ trans2
   del1subseq     the sentence, and the sentence with one contiguous part
                  deleted (not all of it)
   length         every tag string of the sentence's length over a tag set:
                  -m MODEL's tags, --tags, or else every tag of the input
                  (which is then read whole before anything is written)
del1 of a one-word sentence holds the empty string too (a final start state);
it has no tree, so it adds nothing.

--max-memory SIZE (default 1G) refuses, before it is built, a sentence whose
neighbourhood would need more memory to build and write: del1subseq's grows
with the square of the sentence (about 2 KiB times n², 2 GiB at 1,000
words), length's with its words times its tags, the others with its words.

estep reads these records and writes the expected counts over the
neighbourhoods (the denominator of CE's gradient); train-ce builds the same
lattices in-process.

--words makes the neighbourhoods of the sentences' words instead, as
train-hmm --estimator ce compares each sentence with: the record has "words"
where it had "tags", and words on its arcs; length's vocabulary is then -m
MODEL's words (an HMM, as ce-step --start --states writes it) or every word of
the input. estep -m on a log-linear HMM counts over them.

--spelling makes the neighbourhoods of the sentences' tagged words, for Model
U's spelling features (train-ce --family modelu --spelling), which read the
words: the record has the sentence's "tags" and "words", and each arc a tag
and a word, [from, to, "tag", "word"]; two tokens are one symbol when their
tags and spelling affixes are the same (the arc names the first such word:
"1990" and "1989" are both CD with -0, -00, -000, 0-, 00-, 000-). Not for length. Model U's neighbourhoods without
spelling are the plain ones (length's tag set -m MODEL: a Model U model's
header tags).

Examples:
   nbhd --kind del1ortrans1 wsj10.jsonl > wsj10.del1ortrans1.jsonl
   nbhd --kind length -m model.jsonl wsj10.jsonl | estep -m model.jsonl
   nbhd --words --kind trans1 corpus.jsonl | estep -m hmm-w.jsonl     # HMM CE
   nbhd --spelling --kind trans2 corpus.jsonl | estep -m u.jsonl       # Model U CE, spelling`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "kind", Value: nbhd.Del1OrTrans1, Usage: "the neighbourhood, `KIND`: " + strings.Join(nbhd.Kinds, ", ")},
			program.ModelFlag(false),
			&cli.StringFlag{Name: "tags", Usage: "length's tag set, as a comma-separated `LIST` (instead of -m)"},
			&cli.BoolFlag{Name: "words", Usage: "neighbourhoods of the sentences' words, not their tags (a log-linear HMM's CE); length's vocabulary is -m's or the input's"},
			&cli.BoolFlag{Name: "spelling", Usage: "neighbourhoods of the sentences' tagged words, each arc a tag and a word (Model U's spelling features); not length"},
			program.MaxMemoryFlag(), program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := program.CheckModelFiles(c.String("model")); err != nil {
				return err
			}
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			kind := c.String("kind")
			if !nbhd.Known(kind) {
				return program.Usagef("unknown --kind %q (want one of %s)", kind, strings.Join(nbhd.Kinds, ", "))
			}
			if kind != nbhd.Length && (c.String("model") != "" || c.String("tags") != "") {
				return program.Usagef("-m and --tags give the tag set of --kind length only")
			}
			if c.String("model") != "" && c.String("tags") != "" {
				return program.Usagef("give length's tag set once: -m MODEL or --tags LIST")
			}
			switch {
			case c.Bool("spelling") && c.Bool("words"):
				return program.Usagef("--words and --spelling: neighbourhoods of words (an HMM's) or of tagged words (Model U's), not both")
			case c.Bool("spelling") && kind == nbhd.Length:
				return program.Usagef("--spelling --kind length: length spells every tag string, without words; tagged words need another kind")
			}
			if c.Bool("words") && c.String("tags") != "" {
				return program.Usagef("--tags is length's tag set; with --words its vocabulary is -m MODEL's words or the input's")
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return nbhd.Run(src, w, nbhd.Options{Kind: kind, Model: c.String("model"), Tags: c.String("tags"), Words: c.Bool("words"), Spelling: c.Bool("spelling"), MaxMemory: limit})
			})
		},
	}
}
