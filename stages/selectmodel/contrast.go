package selectmodel

import (
	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/stages/ce"
	"github.com/grind-nlp/grind/stages/dmv"
)

// Contrast is Smith's unsupervised selection for contrastive estimation
// (2006, ch. 4): the contrastive objective Σ log Z(x) − log Z(N(x)) of the
// unannotated dev sentences, under the neighbourhood the models were
// trained with, without the prior; higher first. It ranks log-linear and
// probability models alike.
const Contrast Criterion = "contrast"

// contrast is the contrastive objective of model m on the dev sentences
// marked known (those every model's tags cover, so that all models are
// summed over the same sentences). A probability model enters as its log
// probabilities, clamped as train-ce clamps its start (ce.LogWeights).
func contrast(dev []*format.Sentence, known []bool, m *dmv.Table, kind string, workers int) (float64, error) {
	var sents []*format.Sentence
	for i, s := range dev {
		if known[i] {
			sents = append(sents, s)
		}
	}
	c, err := dmv.NewCorpus(sents, m.Tags)
	if err != nil {
		return 0, err
	}
	p, err := ce.NewProblem(c, kind, workers)
	if err != nil {
		return 0, err
	}
	w := m.Params
	if m.Unit == format.Prob {
		w = ce.LogWeights(m.Params)
	}
	return p.Evaluate(w, ce.Settings{Workers: workers}).Objective, nil
}
