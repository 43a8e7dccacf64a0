package commands

import (
	"fmt"
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/classes"
)

func init() { program.Register("train-classes", trainClassesApp) }

// Bounds that keep a mistyped number from exhausting memory before any
// work: Brown's tables are (K+2)² (160 MB at 2,000), Klein's MᵀM is
// (2N)² (128 MB at 2,000).
const (
	maxBrownClasses = 2000
	maxContexts     = 2000
)

// kleinFlags are the flags only --method klein takes.
var kleinFlags = []string{"contexts", "rank", "max-iter", "seed"}

func trainClassesApp() *cli.App {
	return &cli.App{
		Usage:     "induce word classes (Klein's distributional classes or Brown clustering): the tagged corpus, and with --save-model the class model",
		UsageText: "train-classes --method klein|brown [--classes K] [--save-model FILE] [options] [FILE...]",
		Description: `Clusters the word types of the sentences' "words" and writes the same
sentences with each word's class in "tags" and the reference tags in
"gold_tags" (the input's gold_tags when it has them, else its tags; none for
raw text), so that train-classes | score-tags gives a table row and the
output feeds train-em, train-ccm and decode as they are. Sentences need
words; tags are optional. --save-model also writes the class model, with
which tag-classes tags new text.

  klein  Klein (2005) §2.1.4: each lowercased word type's counts of the 500
         most common words just left and just right of it (--contexts),
         length-normalised, reduced by an SVD to the 50 largest singular
         vectors (--rank), clustered by k-means weighted by the words'
         counts (k-means++ start from --seed; Lloyd's iterations until no
         word moves, at most --max-iter). Classes c0 … (heaviest first).
  brown  Brown et al. (1992) with the window of Liang's brown-cluster: the
         K most frequent words start as K clusters; every further word
         joins as a cluster of its own and the two clusters whose merge
         loses the least average mutual information merge; the K classes
         are then merged to one, and each class is named by its path in
         that tree (0 first child, 1 second), so that --prefix N (here or
         in tag-classes) gives coarser classes. No seed: it is
         deterministic.

Both give the same output for any --workers. --function-words N then gives
each of the N most frequent word forms (lowercased) a class of its own,
"w:" and the form ("w:the"): the closed-class words that UD's content-head
principle makes leaves, which train-em --rules content-heads keeps from
heading dependencies (induce --words does both).
--max-memory SIZE (default 1G) refuses, once the word types are counted
and before any table is made, a run whose tables would need more:
Brown's (K+2)², Klein's (2N)², the types' vectors and k-means's sums of K
classes.

Examples:
   train-classes --method klein --classes 200 --save-model klein.jsonl wsj10.jsonl | score-tags
   train-classes --method brown --classes 256 --save-model brown.jsonl brown.jsonl -o brown.tagged.jsonl
   train-classes --method brown --classes 256 --prefix 6 train.jsonl | train-em -q -o dmv.jsonl
   tag-classes -m brown.jsonl test.jsonl | score-tags
   train-classes --method brown --classes 64 --function-words 50 train.jsonl | train-em --rules content-heads --rule-share 0.95 -q -o dmv.jsonl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "method", Required: true, Usage: "`METHOD`: klein (Klein's distributional classes) or brown (Brown clustering)"},
			&cli.IntFlag{Name: "classes", Value: 200, Usage: "`K` classes (Klein's number; at least 2, at most the word types; brown: at most 2000)"},
			&cli.IntFlag{Name: "contexts", Value: 500, Usage: "klein: the `N` most common words counted on each side"},
			&cli.IntFlag{Name: "rank", Value: 50, Usage: "klein: singular vectors `R` kept"},
			&cli.IntFlag{Name: "max-iter", Value: 100, Usage: "klein: k-means's iterations `N` at most"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "klein: random seed `S` of the k-means++ start"},
			&cli.IntFlag{Name: "prefix", Usage: "brown: write each class's first `N` bits (a coarser class); 0 the whole path"},
			&cli.IntFlag{Name: "function-words", Usage: "give each of the `N` most frequent word forms (lowercased) a class of its own, w:FORM"},
			&cli.StringFlag{Name: "save-model", Usage: "also write the class model to `FILE`, for tag-classes"},
			&cli.IntFlag{Name: "workers", Usage: "`N` goroutines (0: every core); the classes do not depend on it"},
			program.MaxMemoryFlag(), program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			method := c.String("method")
			if !slices.Contains(classes.Methods, method) {
				return program.Usagef("--method must be klein or brown, not %q", method)
			}
			if method != classes.MethodKlein {
				for _, f := range kleinFlags {
					if c.IsSet(f) {
						return program.Usagef("--%s is for --method klein", f)
					}
				}
			}
			if method != classes.MethodBrown && c.IsSet("prefix") {
				return program.Usagef("--prefix is for --method brown: Klein's classes are not paths")
			}
			if err := program.CheckWorkers(c); err != nil {
				return err
			}
			limit, err := program.MaxMemory(c)
			if err != nil {
				return err
			}
			k := c.Int("classes")
			switch {
			case k < 2:
				return program.Usagef("--classes must be ≥ 2, not %d", k)
			case method == classes.MethodBrown && k > maxBrownClasses:
				return program.Usagef("--classes %d: Brown clustering keeps K² numbers five times over and costs K² a word; at most %d", k, maxBrownClasses)
			case c.Int("contexts") < 1 || c.Int("contexts") > maxContexts:
				return program.Usagef("--contexts must be between 1 and %d (MᵀM holds (2N)² numbers), not %d", maxContexts, c.Int("contexts"))
			case c.Int("rank") < 1:
				return program.Usagef("--rank must be ≥ 1, not %d", c.Int("rank"))
			case c.Int("max-iter") < 1:
				return program.Usagef("--max-iter must be ≥ 1, not %d", c.Int("max-iter"))
			case c.Int("function-words") < 0:
				return program.Usagef("--function-words must be ≥ 0, not %d", c.Int("function-words"))
			case c.Int("prefix") < 0:
				return program.Usagef("--prefix must be ≥ 0, not %d", c.Int("prefix"))
			}
			var model *pipeline.Output
			if p := c.String("save-model"); p != "" {
				var err error
				if model, err = pipeline.Create(p, nil); err != nil {
					return fmt.Errorf("--save-model: %w", err)
				}
				program.AddSideOutput(c, model)
			}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				sents, err := classes.ReadSentences(src)
				if err != nil {
					return err
				}
				m, err := classes.Train(sents, classes.TrainOptions{
					Method: method, Classes: k, Workers: c.Int("workers"), FunctionWords: c.Int("function-words"),
					MaxMemory: limit,
					Klein:     classes.KleinOptions{Contexts: c.Int("contexts"), Rank: c.Int("rank"), MaxIter: c.Int("max-iter"), Seed: c.Uint64("seed")},
				})
				if err != nil {
					return fmt.Errorf("%s: %w", pipeline.DescribeInputs(src.Names), err)
				}
				if model != nil { // put in place with -o
					if err := m.Write(model); err != nil {
						return err
					}
				}
				if !c.Bool("quiet") {
					fmt.Fprintf(c.App.ErrWriter, "%s: %s\n", c.App.Name, summarizeClasses(m))
				}
				return classes.WriteTagged(w, sents, m.TagTraining(sents, c.Int("prefix")))
			})
		},
	}
}

// summarizeClasses is train-classes's line on stderr.
func summarizeClasses(m *classes.Model) string {
	s := fmt.Sprintf("%s: %d classes of %d word types (%d sentences, %d tokens)", m.Method, len(m.Classes), len(m.Words), m.Info.Sentences, m.Info.Tokens)
	if m.Info.FunctionWords > 0 {
		s += fmt.Sprintf(", %d of them function words'", m.Info.FunctionWords)
	}
	if m.Method == classes.MethodBrown {
		return s + fmt.Sprintf(", average mutual information %.4f bits", m.Info.AMI)
	}
	return s + fmt.Sprintf(", k-means %d iterations, distortion %.6g", m.Info.Iterations, m.Info.Distortion)
}
