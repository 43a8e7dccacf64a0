package pr_test

import (
	"testing"

	"github.com/grind-nlp/grind/internal/corpora"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/pr"
	"github.com/grind-nlp/grind/stages/train"
)

// BenchmarkIteration measures training iterations on UD English ≤10
// (XPOS tags) from the km start: plain EM against EM for posterior
// regularization with the ptb rules and with sparsity (σ = 10, pr-toolkit's
// default) by the interleaved rule (the default), the exact rule (at
// pr-toolkit's --dual-tol and looser ones) and the exact rule at one dual
// step per E-step (--dual-steps 1), each a run of 20 iterations whose time
// per iteration is reported (ms/iter) — the projections' cost as training
// meets it, warm starts included. The target is PR ≤ 3× EM per iteration.
func BenchmarkIteration(b *testing.B) {
	c := corpora.UDEnglish(b, 10)
	start, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{Workers: 2})
	if err != nil {
		b.Fatal(err)
	}
	rules, err := pr.Builtin("ptb")
	if err != nil {
		b.Fatal(err)
	}
	const iters = 20
	for _, bc := range []struct {
		name string
		opts pr.Options
	}{
		{"em", pr.Options{}},
		{"rules", pr.Options{Rules: rules, RuleShare: pr.DefaultRuleShare}},
		{"sparsity", pr.Options{Sigma: pr.DefaultSigma}},
		{"sparsity-exact", pr.Options{Sigma: pr.DefaultSigma, Rule: pr.Exact}},
		{"sparsity-exact-1e-4", pr.Options{Sigma: pr.DefaultSigma, Rule: pr.Exact, Tol: 1e-4}},
		{"sparsity-exact-1e-3", pr.Options{Sigma: pr.DefaultSigma, Rule: pr.Exact, Tol: 1e-3}},
		{"sparsity-exact-3e-3", pr.Options{Sigma: pr.DefaultSigma, Rule: pr.Exact, Tol: 3e-3}},
		{"sparsity-exact-1e-2", pr.Options{Sigma: pr.DefaultSigma, Rule: pr.Exact, Tol: 1e-2}},
		{"sparsity-1step", pr.Options{Sigma: pr.DefaultSigma, Rule: pr.Exact, MaxSteps: 1}},
	} {
		for _, workers := range []int{1, 2} {
			b.Run(bc.name+"/workers"+string(rune('0'+workers)), func(b *testing.B) {
				for b.Loop() {
					em := &train.EM{Corpus: c, MaxIter: iters, Tol: 1e-300, EStep: dmv.EStepOptions{Workers: workers}}
					if bc.opts.On() {
						if em.Projector, err = pr.New(c, bc.opts); err != nil {
							b.Fatal(err)
						}
					}
					if _, err := em.Run(start); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N*iters), "ms/iter")
			})
		}
	}
}
