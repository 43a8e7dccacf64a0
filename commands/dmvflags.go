package commands

import (
	"math"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline/progress"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/emloop"
)

func seedFlag() cli.Flag {
	return &cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed `S`; the same seed gives the same output"}
}

// ProgressHelp is the trainers' help on what they say on stderr
// (pipeline/progress; README, train-em).
const ProgressHelp = `On stderr, unless --quiet: on a terminal one status line, redrawn in place
(the iteration, a schedule's stage i/N, a bar, the rate and the time left,
the objective; 80 columns when the terminal reports none); elsewhere one
line per iteration, its fields in fixed-width columns, ending with the rate
(ms/iter or s/iter) and the time left to the --max-iter bound — "ETA ≤" when
--tol may end the run (or a stage) earlier, "ETA" for the sampler's sweeps,
which all run.`

// newProgress reports on stderr for the program, unless --quiet, on a run
// of the plan (its bound on the iterations, its stages).
func newProgress(c *cli.Context, plan progress.Plan) *progress.Reporter {
	return progress.New(c.App.ErrWriter, c.App.Name, plan, c.Bool("quiet"))
}

// Tolerance reads --tol: absent, 0 tells the training loop to use its
// default; given, it is taken at its word. The loops stop when the
// relative change is below the tolerance, so --tol 0 becomes the smallest
// positive number: only an objective that does not change at all stops
// the run before --max-iter.
func Tolerance(c *cli.Context) (float64, error) {
	if tol := c.Float64("tol"); c.IsSet("tol") && (!(tol >= 0) || math.IsInf(tol, 1)) {
		return 0, program.Usagef("--tol must be a finite number ≥ 0, not %g", tol)
	}
	return givenTol(c), nil
}

// givenTol is Tolerance of a --tol already checked.
func givenTol(c *cli.Context) float64 {
	switch tol := c.Float64("tol"); {
	case !c.IsSet("tol"):
		return 0
	case tol == 0:
		return math.SmallestNonzeroFloat64
	default:
		return tol
	}
}

// stopFlag is every EM trainer's choice of stopping rule (emloop.Rule);
// def names its default.
func stopFlag(def string) cli.Flag {
	return &cli.StringFlag{Name: "stop", DefaultText: def, Usage: "stopping `RULE` --tol is read in: relative (|L − L′|/|L′|) or bits (the per-token cross-entropy's change in bits: Spitkovsky et al. 2010, whose 2^-20 --tol then takes unless given)"}
}

// stopRule reads --stop: "" when it is not given (the trainer's default).
func stopRule(c *cli.Context) (emloop.Rule, error) {
	if !c.IsSet("stop") {
		return "", nil
	}
	r, err := emloop.ParseRule(c.String("stop"))
	if err != nil {
		return "", program.Usagef("--stop: %v", err)
	}
	return r, nil
}

// The categories --help groups the DMV programs' flags in.
const (
	startCategory   = "Start"
	emCategory      = "EM, MAP/EM, Viterbi EM (--estimator em)"
	vbCategory      = "Variational Bayes (--estimator vb)"
	valenceCategory = "Valences (extended valence grammar)"
	modelLCategory  = "Model L: locality bias"
	modelSCategory  = "Model S: segmentation"
)

// prFlags are posterior regularization's flags in their category.
func prFlags() []cli.Flag { return program.InCategory(program.PRCategory, program.PRFlags()...) }

// depthFlags are the left-corner depth bound's flags in their category.
func depthFlags() []cli.Flag {
	return program.InCategory(program.DepthCategory, program.DepthFlags()...)
}

// valenceFlags are the DMV's valence settings (Headden et al. 2009's
// extended valence grammar; pr-toolkit's -dvalency, -cvalency and
// -child-backoff), for the programs that make a model from a corpus.
func valenceFlags() []cli.Flag {
	return program.InCategory(valenceCategory, append([]cli.Flag{
		&cli.IntFlag{Name: "stop-valence", Value: dmv.DMVValence.Stop, Usage: "stop decisions tell apart `V` valences: 1 none, 2 no child yet vs some (the DMV), 3 none vs one vs two or more"},
		&cli.IntFlag{Name: "child-valence", Value: dmv.DMVValence.Child, Usage: "child distributions tell apart `V` valences, counted nearest first: 1 one distribution (the DMV), 2 the first child vs later ones (Headden et al.'s EVG), 3 first, second, later"},
		&cli.Float64Flag{Name: "child-backoff", Usage: "interpolate every child distribution with weight `W` in [0, 1] with one that forgets the head, after each M-step (pr-toolkit's -child-backoff; 0: none)"},
		&cli.BoolFlag{Name: "learn-backoff", Usage: "learn the child back-off (Headden et al. 2009): each argument drawn from its head's distribution or from a back-off (--backoff-forget), the choice hidden and its weight per head, side and valence learned by EM (README, \"Learned back-off\"); not with --child-backoff"},
	}, program.BackoffFlags()...)...)
}

// readLearnBackoff reads --learn-backoff, --backoff-prior and
// --backoff-forget: how the back-off is learned, nil when it is not.
func readLearnBackoff(c *cli.Context) (*dmv.LearnedBackoff, error) {
	if !c.Bool("learn-backoff") {
		if c.IsSet("backoff-prior") || c.IsSet("backoff-forget") {
			return nil, program.Usagef("--backoff-prior and --backoff-forget say how --learn-backoff learns: give them with --learn-backoff")
		}
		return nil, nil
	}
	if c.Float64("child-backoff") != 0 {
		return nil, program.Usagef("--learn-backoff learns the back-off's weights; --child-backoff fixes one: give one of them")
	}
	bp, err := program.LearnedBackoff(c)
	return &bp, err
}

// readValence reads valenceFlags: the settings (zero when neither valence
// flag is given, so that a -m model keeps its own) and the back-off.
func readValence(c *cli.Context) (dmv.Valence, float64, error) {
	w := c.Float64("child-backoff")
	if err := dmv.CheckBackoff(w); err != nil {
		return dmv.Valence{}, 0, program.Usagef("--child-backoff: %v", err)
	}
	if !c.IsSet("stop-valence") && !c.IsSet("child-valence") {
		return dmv.Valence{}, w, nil
	}
	v := dmv.Valence{Stop: c.Int("stop-valence"), Child: c.Int("child-valence")}
	if err := v.Check(); err != nil {
		return dmv.Valence{}, 0, program.Usagef("--stop-valence, --child-valence: %v", err)
	}
	return v, w, nil
}
