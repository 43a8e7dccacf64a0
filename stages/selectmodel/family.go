package selectmodel

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/dmv"
	"github.com/grind-nlp/grind/stages/families"
	"github.com/grind-nlp/grind/stages/family"
	"github.com/grind-nlp/grind/stages/hmm"
	"github.com/grind-nlp/grind/stages/modelu"
	"github.com/grind-nlp/grind/stages/score"
	"github.com/grind-nlp/grind/stages/tageval"
)

// familyOf is the one family of the models, from their headers; models of
// different families are refused, their likelihoods being of different
// things.
func familyOf(models []string) (family.Family, error) {
	var first family.Family
	for i, path := range models {
		f, err := families.All.ForFile(path)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			first = f
		} else if f.Name() != first.Name() {
			return nil, fmt.Errorf("%s is a %s model and %s a %s model: select-model ranks the models of one family at a time", models[0], first.Name(), path, f.Name())
		}
	}
	return first, nil
}

// Measures of a family's dev accuracy, by what its decoder predicts.
const (
	measureBrackets  = "bracket F1"
	measureManyToOne = "many-to-1"
	measureTags      = "tag accuracy"
	measureDirected  = "directed" // accuracy, under --root
	// measureUndirected ranks Model U, which predicts undirected trees
	// (Smith 2006, Table 4.9: selection "on the undirected attachment
	// accuracy score").
	measureUndirected = "undirected"
)

// runFamily ranks models of a family other than the DMV, read and decoded
// through the family's own Model (families.All): by the family's dev
// likelihood (family.Scorer), or by dev accuracy against what the dev
// sentences have of gold: bracket F1 of "pred_spans" against "tree" (the
// CCM), or many-to-1 of the induced "tags" against the gold tags (the HMM;
// tag accuracy when the states are tag names, as under --dict: some
// predicted tag is a gold tag). A family that predicts heads as well
// (DMV+CCM) ranks by directed accuracy under --root when every dev
// sentence has gold heads, else by bracket F1.
func runFamily(w io.Writer, opts Options, fam family.Family, dev []*format.Sentence, devName string) (Report, error) {
	var rep Report
	sf, ok := fam.(family.Sentences)
	if w, wraps := fam.(interface{ SentenceFamily() family.Sentences }); wraps {
		sf, ok = w.SentenceFamily(), true
	}
	if !ok {
		return rep, fmt.Errorf("%s: select-model cannot rank %s models yet", opts.Models[0], fam.Name())
	}
	if opts.By == Rules || opts.By == Bound || opts.By == Agreement || opts.By == PRObjective {
		return rep, fmt.Errorf("--by %s is for DMV models; rank %s models --by likelihood or --by accuracy", opts.By, fam.Name())
	}
	rows := make([]Row, len(opts.Models))
	var measure string
	var notDirected string // why DMV+CCM's heads could not be scored
	for i, path := range opts.Models {
		m, err := sf.ReadModel(path, nil, opts.MaxMemory)
		if err != nil {
			return rep, err
		}
		if err := m.CheckMemory(dev, pipeline.Workers(opts.Workers), false, opts.MaxMemory); err != nil {
			return rep, fmt.Errorf("%s on %s: %w", path, devName, err)
		}
		decoded := make([]*format.Sentence, len(dev))
		for k, s := range dev {
			cp := *s
			decoded[k] = &cp
		}
		c, err := m.Corpus(decoded)
		if err != nil {
			return rep, fmt.Errorf("%s on %s: %w", path, devName, err)
		}
		const per = 64
		fellBack := make([]bool, len(dev))
		pipeline.ForEachChunk((len(dev)+per-1)/per, pipeline.Workers(opts.Workers), func(_, k int) {
			for j := k * per; j < min(len(dev), (k+1)*per); j++ {
				fellBack[j] = m.Decode(c, j, false, decoded[j])
			}
		})
		row := Row{Model: path, By: opts.By, Family: fam.Name(), Sentences: len(dev)}
		for _, s := range dev {
			row.Tokens += s.Len()
		}
		got, why, err := familyAccuracy(dev, decoded, &row, opts.Root, fam.Name() == modelu.Family)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", devName, err)
		}
		if got != "" {
			measure, notDirected = got, why
		}
		if opts.By == Contrast {
			con, ok := m.(family.Contraster)
			if !ok {
				return rep, fmt.Errorf("--by contrast ranks DMV and tagger (hmm, hmmce) models, not %s models; rank them --by likelihood or --by accuracy", fam.Name())
			}
			v, err := con.Contrast(c, opts.Nbhd, opts.Workers)
			if err != nil {
				return rep, fmt.Errorf("%s on %s: %w", path, devName, err)
			}
			r := format.Real(v)
			row.Contrast, row.Nbhd = &r, opts.Nbhd
		}
		scorer, ok := m.(family.Scorer)
		var logProbs []float64
		if !ok {
			row.LogLinear = true
			if opts.By == Likelihood {
				return rep, fmt.Errorf("%s: a %s model gives no dev likelihood; select it --by accuracy (a tagger: or --by contrast)", path, fam.Name())
			}
		} else {
			// Only the DMV and the HMM generate each token once: the CCM's
			// log-likelihood per token is no cross-entropy.
			logProbs = scorer.LogProbs(c, opts.Workers)
			row.DevLikelihood = likelihood(dev, nil, logProbs, fam.Name() == hmm.Family)
			tokens, types, what := scorer.Unseen(c)
			row.UnseenTokens = tokens
			if tokens > 0 && what == "tags" && opts.By == Accuracy { // DMV+CCM's: the parses rank
				rep.fallBack(&row, "%d dev tokens of %d tags it does not know parsed as its DMV's average tag", tokens, types)
			}
			if tokens > rep.UnseenTokens {
				rep.UnseenTokens, rep.UnseenTypes, rep.UnseenWhat = tokens, types, what
			}
		}
		if opts.By == Accuracy { // the predictions rank
			if n := count(fellBack); n > 0 {
				done, does := "parsed", "parses" // as decode says it
				if fam.Name() == hmm.Family {
					done, does = "tagged", "tags"
				}
				rep.fallBack(&row, "%d dev sentences of probability 0 under it %s by the fallback (every impossible event at 1e-300), as decode %s them", n, done, does)
			}
			// An HMM whose unseen_word weights are all 0 gives a sentence
			// with a word it never saw probability 0, and tags that word
			// with weight 1 in every state (Records): no fallback of the
			// decoder's, but no tagging of the model's either.
			n := 0
			for j, lp := range logProbs {
				if math.IsInf(lp, -1) && !fellBack[j] {
					n++
				}
			}
			if n > 0 && fam.Name() == hmm.Family {
				rep.fallBack(&row, "%d dev sentences of probability 0 under it (a word it never saw, its unseen_word weights all 0) tagged as decode tags them: such a word at weight 1 in every state, its tag chosen by the transitions alone", n)
			} else if n > 0 {
				rep.fallBack(&row, "%d dev sentences of probability 0 under it decoded as decode decodes them, not by its fallback", n)
			}
		}
		rep.zeroFallback(&row, opts.By)
		rows[i] = row
	}
	// A measure of another kind than the one the models' predictions
	// could be scored by, for all of them (--by accuracy ranks by it).
	var instead string
	if measure == measureTags || measure == measureManyToOne {
		// Each model's measure is its own; the last one's alone decided.
		named := slices.IndexFunc(rows, func(r Row) bool { return r.Report != nil && r.Accuracy != nil })
		unnamed := slices.IndexFunc(rows, func(r Row) bool { return r.Report != nil && r.Accuracy == nil })
		switch {
		case named >= 0 && unnamed < 0:
			measure = measureTags
		case named >= 0:
			measure = measureManyToOne // some model's states are not gold tags
			instead = fmt.Sprintf("ranked by many-to-1, not tag accuracy: the states of %s are gold tags, those of %s are not", rows[named].Model, rows[unnamed].Model)
		}
	}
	if measure == measureBrackets && notDirected != "" {
		instead = "ranked by bracket F1 against the dev trees, not directed accuracy: " + notDirected
	}
	if instead != "" && opts.By == Accuracy {
		rep.fallBackAll(rows, instead)
	}
	for i := range rows {
		switch r := &rows[i]; measure {
		case measureBrackets:
			r.acc = &r.Brackets.Standard.F1
		case measureManyToOne:
			r.acc = &r.Report.ManyToOne
		case measureTags:
			r.acc = r.Accuracy
		case measureDirected:
			r.acc = &r.Heads.Directed
		case measureUndirected:
			r.acc = &r.Heads.Undirected
		}
	}
	if opts.By == Accuracy && measure == "" {
		return rep, fmt.Errorf("%s: supervised selection (--by accuracy) of %s models needs the gold annotation of every dev sentence (\"tree\" for brackets, gold tags for tags); --by likelihood does not", devName, fam.Name())
	}
	var err error
	rep.Best, err = publish(w, rows, opts, func(i int) error { return copyModel(opts.Best, rows[i].Model) },
		func(ranked []Row) error { return writeFamilyTable(w, ranked, opts, fam.Name(), measure, devName) })
	return rep, err
}

// publish ranks rows, writes the best one's model to opts.Best (by
// writeBest, given its index in rows) and the ranking to w — JSON lines,
// or the table writeTable makes — and returns the best row.
func publish(w io.Writer, rows []Row, opts Options, writeBest func(i int) error, writeTable func(ranked []Row) error) (Row, error) {
	order := rank(rows, opts.By)
	ranked := make([]Row, len(rows))
	for r, i := range order {
		ranked[r] = rows[i]
		ranked[r].Rank = r + 1
	}
	if opts.Best != nil {
		if err := writeBest(order[0]); err != nil {
			return ranked[0], err
		}
	}
	if opts.JSON {
		for _, r := range ranked {
			if err := pipeline.WriteRecord(w, r); err != nil {
				return ranked[0], err
			}
		}
		return ranked[0], nil
	}
	return ranked[0], writeTable(ranked)
}

// familyAccuracy scores the decoded dev sentences against the gold the dev
// sentences have for what the decoder predicted, into row; it returns the
// measure that ranks ("" when the dev sentences have no such gold).
func familyAccuracy(dev, decoded []*format.Sentence, row *Row, root score.Convention, undirected bool) (measure, notDirected string, err error) {
	switch {
	case undirected: // heads only: Model U, ranked by undirected accuracy
		var t score.Tally
		for _, s := range dev {
			if len(s.Heads) != s.Len() {
				return "", "", nil
			}
		}
		for k, s := range dev {
			t.Add(s.Heads, decoded[k].Pred)
		}
		row.Heads = score.HeadsOf(t, root)
		return measureUndirected, "", nil
	case slices.ContainsFunc(decoded, func(s *format.Sentence) bool { return s.PredSpans != nil }):
		predHeads := slices.ContainsFunc(decoded, func(s *format.Sentence) bool { return s.Pred != nil })
		noGold := slices.IndexFunc(dev, func(s *format.Sentence) bool { return len(s.Heads) != s.Len() })
		heads := predHeads && noGold < 0
		if predHeads && noGold >= 0 {
			notDirected = fmt.Sprintf("dev sentence %d%s has no gold heads", noGold+1, idOf(dev[noGold]))
		}
		if heads {
			var t score.Tally
			for k, s := range dev {
				t.Add(s.Heads, decoded[k].Pred)
			}
			row.Heads = score.HeadsOf(t, root)
		}
		measure = measureBrackets
		if heads {
			measure = measureDirected
		}
		var t score.BracketTally
		for k, s := range dev {
			if s.Tree == "" {
				if heads {
					return measure, "", nil
				}
				return "", "", nil
			}
			gold, n, err := score.GoldBrackets(s.Tree)
			if err != nil {
				return "", "", fmt.Errorf("sentence %d (%s): %w", k+1, s.ID, err)
			}
			if n != s.Len() {
				return "", "", fmt.Errorf("sentence %d (%s): its tree has %d words, its tags %d", k+1, s.ID, n, s.Len())
			}
			t.Add(gold, decoded[k].PredSpans, n)
		}
		b := t.Report("pred_spans")
		row.Brackets = &b
		return measure, notDirected, nil
	case decoded[0].GoldTags != nil:
		c := tageval.NewCounter()
		for k, s := range dev {
			gold := hmm.GoldTags(s)
			if len(gold) != len(decoded[k].Tags) {
				return "", "", nil // no gold tags
			}
			for j, g := range gold {
				c.Add(s.Words[j], g, decoded[k].Tags[j])
			}
		}
		r := c.Report()
		row.Report = &r
		if r.Accuracy != nil { // the states are tag names (--dict)
			return measureTags, "", nil
		}
		return measureManyToOne, "", nil
	}
	return "", "", nil
}

// idOf is " (id)" for a sentence with an id, else "".
func idOf(s *format.Sentence) string {
	if s.ID == "" {
		return ""
	}
	return " (" + s.ID + ")"
}

// count is how many of bs are true.
func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// copyModel copies the model file from to w (decompressed).
func copyModel(w io.Writer, from string) error {
	in, err := pipeline.Open(from, nil)
	if err != nil {
		return err
	}
	defer in.Close()
	_, err = io.Copy(w, in)
	return err
}

func writeFamilyTable(w io.Writer, rows []Row, opts Options, fam, measure, dev string) error {
	var b strings.Builder
	by := "dev " + measure
	if measure == measureDirected || measure == measureUndirected {
		by = "dev " + measure + " accuracy (root " + map[bool]string{false: "counted", true: "excluded"}[opts.Root == score.RootExcluded] + ")"
	}
	if opts.By == Likelihood {
		by = "dev log-likelihood (" + fam + ")"
	}
	contrast := ""
	if opts.By == Contrast {
		by = "dev contrastive objective (" + opts.Nbhd + ")"
		contrast = "        contrast"
	}
	fmt.Fprintf(&b, "%d %s models ranked by %s on %s: %d sentences, %d tokens\n\n", len(rows), fam, by, dev, rows[0].Sentences, rows[0].Tokens)
	head := measure
	if head == "" {
		head = "accuracy"
	}
	fmt.Fprintf(&b, "rank  %12s          loglik  bits/token  p=0%s  model\n", head, contrast)
	for _, r := range rows {
		acc := "-"
		if r.acc != nil {
			acc = fmt.Sprintf("%.1f", 100**r.acc)
		}
		ll := r.DevLikelihood.columns() // dashes for log-linear models: no probabilities
		if r.Contrast != nil {
			ll += fmt.Sprintf("  %14.6g", float64(*r.Contrast))
		}
		fmt.Fprintf(&b, "%4d  %12s  %s  %s\n", r.Rank, acc, ll, r.Model)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// isDMV says whether the models are the DMV's (the default family: a file
// without a header is read, and refused, as the DMV's).
func isDMV(f family.Family) bool { return f.Name() == dmv.Family }
