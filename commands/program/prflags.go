package program

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/stages/pr"
)

// PRFlags are posterior regularization's flags (stages/pr), shared by
// train-em and estep so that the shell loop names them as the trainer
// does.
func PRFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "rules", Usage: "posterior regularization by universal rules: the built-in table `NAME` (ud, ud1, naseem-ud, ptb, content-heads) or a rule FILE (lines HEAD DEPENDENT, ROOT for the root)"},
		&cli.Float64Flag{Name: "rule-share", Value: pr.DefaultRuleShare, Usage: "with --rules: at least this share `τ` of the dependencies instantiate a rule, in expectation"},
		&cli.Float64Flag{Name: "rule-cap", Value: pr.DefaultRuleCap, Usage: "with --rules: the dual variable's bound `C` (a share no tree reaches costs C nats per dependency short)"},
		&cli.Float64Flag{Name: "sparsity", Usage: "posterior regularization by the L1/L∞ sparsity penalty of strength `σ` on (child tag, parent tag) dependency types (pr-toolkit's default is 10)"},
		&cli.BoolFlag{Name: "sparsity-grouped", Usage: "with --sparsity: one instance per child token and parent tag, not per potential edge"},
		&cli.BoolFlag{Name: "sparsity-root", Usage: "with --sparsity: constrain the attachments to the root too (as a parent type of their own)"},
		&cli.BoolFlag{Name: "sparsity-direction", Usage: "with --sparsity: left and right dependencies are different types"},
		&cli.StringFlag{Name: "dual-rule", Usage: "posterior regularization: `RULE` exact (solve every projection: to --dual-tol, pr-toolkit's rules, or to --dual-gap; the default) or interleaved (one E-step an iteration and one dual step between, line-searched steps only when the objective would fall)"},
		&cli.IntFlag{Name: "dual-steps", Value: pr.DefaultMaxSteps, Usage: "posterior regularization: at most `N` projected-gradient steps on the dual per E-step (--dual-rule interleaved: in its fallback)"},
		&cli.Float64Flag{Name: "dual-tol", Value: pr.DefaultTol, Usage: "posterior regularization, the exact rule: stop the dual's steps when its objective changes by less than `T` relatively (or its projected gradient shrinks by that factor); the default for --rules and for --sparsity with --dual-rule exact"},
		&cli.Float64Flag{Name: "dual-gap", Usage: fmt.Sprintf("posterior regularization: solve every projection (the exact rule) until the duality gap is at most `G` times the dual's value, checked where the last one ended too (so a projection may take no step), instead of --dual-tol's rules (--sparsity's default: %v)", pr.DefaultGap)},
	}
}

// PROptions reads PRFlags; a constraint's options without the constraint,
// or a bad value, is a usage error.
func PROptions(c *cli.Context) (pr.Options, error) {
	opts := pr.Options{
		RuleShare: c.Float64("rule-share"), RuleCap: c.Float64("rule-cap"),
		Sigma:   c.Float64("sparsity"),
		Grouped: c.Bool("sparsity-grouped"), Root: c.Bool("sparsity-root"), Direction: c.Bool("sparsity-direction"),
		MaxSteps: c.Int("dual-steps"), Gap: c.Float64("dual-gap"),
		Rule: pr.DualRule(c.String("dual-rule")),
	}
	if c.IsSet("dual-tol") { // unset, sparsity's projections stop by the gap (pr.New)
		opts.Tol = c.Float64("dual-tol")
	}
	if name := c.String("rules"); name != "" {
		rules, err := pr.LoadRules(name)
		if err != nil {
			return opts, err
		}
		opts.Rules = rules
	} else {
		for _, f := range []string{"rule-share", "rule-cap"} {
			if c.IsSet(f) {
				return opts, Usagef("--%s is an option of --rules", f)
			}
		}
	}
	if c.IsSet("sparsity") && !(opts.Sigma > 0) {
		return opts, Usagef("--sparsity must be a finite number > 0, not %v", opts.Sigma)
	}
	if !opts.On() {
		for _, f := range []string{"dual-rule", "dual-steps", "dual-tol", "dual-gap"} {
			if c.IsSet(f) {
				return opts, Usagef("--%s is an option of posterior regularization (--rules or --sparsity)", f)
			}
		}
	}
	if c.IsSet("dual-steps") && opts.MaxSteps < 1 {
		return opts, Usagef("--dual-steps must be at least 1, not %d", opts.MaxSteps)
	}
	if c.IsSet("dual-tol") && !(opts.Tol > 0 && opts.Tol < 1) {
		return opts, Usagef("--dual-tol must be a number in (0, 1), not %v", opts.Tol)
	}
	if c.IsSet("dual-gap") && !(opts.Gap > 0 && opts.Gap < 1) {
		return opts, Usagef("--dual-gap must be a number in (0, 1), not %v", opts.Gap)
	}
	if err := opts.Check(); err != nil {
		return opts, Usagef("%v", err)
	}
	return opts, nil
}
