package selectmodel

import (
	"errors"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/pr"
)

// Two more unsupervised criteria of issue 20 (docs/results.md, "Choosing
// without annotation: the criteria measured"), beside the share of rules.
const (
	// Agreement ranks a model by how far its dev parses agree with the
	// other candidates': the mean, over the other models, of the share of
	// dev tokens (the roots' attachments included) given the same head.
	// The consensus (minimum-risk) choice among runs; higher first, then
	// the dev log-likelihood.
	Agreement Criterion = "agreement"
	// PRObjective ranks a model by the objective posterior regularization
	// by universal rules maximises, on the dev sentences: Σ log p(x) −
	// min KL(q ‖ p(z|x)) over the posteriors q whose expected share of
	// rules is at least τ (Options.RuleShare) — the likelihood where the
	// model meets the constraint, less the distance to it where it does
	// not. Higher first.
	PRObjective Criterion = "pr"
)

// agreement is, for each model's parses, the mean over the other
// models of the share of tokens whose heads the two parses share.
func agreement(preds [][][]int) []float64 {
	out := make([]float64, len(preds))
	for a := range preds {
		for b := range a {
			same, all := 0, 0
			for i, pa := range preds[a] {
				for d, h := range pa {
					if preds[b][i][d] == h {
						same++
					}
					all++
				}
			}
			share := float64(same) / float64(max(all, 1))
			out[a] += share
			out[b] += share
		}
	}
	for a := range out {
		out[a] /= float64(len(preds) - 1)
	}
	return out
}

// prObjective is the PR objective of model m (of potentials w) on the dev
// sentences marked known (those whose tags every model knows, as the
// likelihood sums), under rules at share τ: the minimum of the dual
// Σ log Z(λ) + λ(1 − τ)N over λ ∈ [0, pr.DefaultRuleCap], solved exactly
// as train-em's projections are (stages/pr).
func prObjective(dev []*format.Sentence, known []bool, m *dmv.Table, w *dmv.Params, rules *pr.Rules, tau float64, workers int) (float64, error) {
	var sents []*format.Sentence
	for i, s := range dev {
		if known[i] {
			sents = append(sents, s)
		}
	}
	if len(sents) == 0 {
		return 0, errors.New("no dev sentence whose tags every model knows")
	}
	c, err := dmv.NewCorpus(sents, m.Tags)
	if err != nil {
		return 0, err
	}
	proj, err := pr.New(c, pr.Options{Rules: rules, RuleShare: tau, Rule: pr.Exact})
	if err != nil {
		return 0, err
	}
	res, err := proj.EStep(dmv.NewEStepper(c), w, dmv.EStepOptions{Workers: workers})
	if err != nil {
		return 0, err
	}
	return res.Value, nil
}
