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
// default) by the interleaved rule (the case "sparsity": the default until
// 29 November), the exact rule (at pr-toolkit's --dual-tol and looser
// ones), the exact rule at one dual step per E-step (--dual-steps 1) and the
// exact rule stopped by the duality gap ("sparsity-gap-3e-2" is the
// default now), each a run of 20 iterations whose time
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
		{"sparsity", pr.Options{Sigma: pr.DefaultSigma, Rule: pr.Interleaved}},
		{"sparsity-exact", pr.Options{Sigma: pr.DefaultSigma, Rule: pr.Exact}},
		{"sparsity-exact-1e-4", pr.Options{Sigma: pr.DefaultSigma, Rule: pr.Exact, Tol: 1e-4}},
		{"sparsity-exact-1e-3", pr.Options{Sigma: pr.DefaultSigma, Rule: pr.Exact, Tol: 1e-3}},
		{"sparsity-exact-3e-3", pr.Options{Sigma: pr.DefaultSigma, Rule: pr.Exact, Tol: 3e-3}},
		{"sparsity-exact-1e-2", pr.Options{Sigma: pr.DefaultSigma, Rule: pr.Exact, Tol: 1e-2}},
		{"sparsity-1step", pr.Options{Sigma: pr.DefaultSigma, Rule: pr.Exact, MaxSteps: 1}},
		{"sparsity-gap-1e-2", pr.Options{Sigma: pr.DefaultSigma, Gap: 1e-2}},
		{"sparsity-gap-3e-2", pr.Options{Sigma: pr.DefaultSigma, Gap: 3e-2}},
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

// BenchmarkEStepCallbacks is the DMV's E-step on UD English ≤ 10 (XPOS,
// the km model, one worker) plain and with the callbacks posterior
// regularization gives it, here trivial (factors of 1, posteriors
// unread): what the factored path itself costs, before the dual's work.
func BenchmarkEStepCallbacks(b *testing.B) {
	c := corpora.UDEnglish(b, 10)
	start, err := dmv.InitialModel(c, dmv.InitKM, dmv.InitOptions{Workers: 2})
	if err != nil {
		b.Fatal(err)
	}
	ones := func(_ int, edge, root []float64) {
		for k := range edge {
			edge[k] = 1
		}
		for k := range root {
			root[k] = 1
		}
	}
	unread := func(int, []float64, []float64) {}
	estep := dmv.NewEStepper(c)
	for _, bc := range []struct {
		name string
		opts dmv.EStepOptions
	}{
		{"plain", dmv.EStepOptions{Workers: 1}},
		{"factors", dmv.EStepOptions{Workers: 1, Factors: ones}},
		{"posteriors", dmv.EStepOptions{Workers: 1, Posteriors: unread}},
		{"both", dmv.EStepOptions{Workers: 1, Factors: ones, Posteriors: unread}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if res := estep.Run(start, bc.opts); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}
