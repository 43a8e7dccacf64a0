package dmvccm

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/stages/ccm"
	"github.com/grind-nlp/grind/stages/rundir"
)

// A model of the mixture or of footnote 8 writes its family and reads
// back to the same bytes and hash; its checkpoint resumes to the model an
// uninterrupted run makes, and a checkpoint of another order is refused.
func TestOrderFamiliesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 8))
	sents := randomSentences(rng, 25, 7, 5)
	dir := t.TempDir()
	snaps := map[Order]Snapshot{}
	for _, order := range []Order{Released, RightFirstOrder, Mixture, Footnote8} {
		var states []rundir.State[Snapshot]
		opts := Options{MaxIter: 4, Tol: 1e-300, Order: order, Checkpoint: func(st rundir.State[*Model]) error {
			b, _ := json.Marshal(st.Model.Snapshot())
			var s Snapshot
			if err := json.Unmarshal(b, &s); err != nil {
				return err
			}
			states = append(states, rundir.State[Snapshot]{Stage: st.Stage, StageIters: st.StageIters, Before: st.Before, Prev: st.Prev, Model: s})
			return nil
		}}
		want, _, err := Train(sents, opts)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteModel(&b, want); err != nil {
			t.Fatalf("%s: %v", order, err)
		}
		if !strings.HasPrefix(b.String(), `{"ev":"header","family":"`+FamilyOfOrder(order)+`"`) {
			t.Errorf("%s: header %.80q", order, b.String())
		}
		path := filepath.Join(dir, order.String()+".jsonl")
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := ReadModel(path, nil)
		if err != nil {
			t.Fatalf("%s: %v", order, err)
		}
		var again bytes.Buffer
		if err := WriteModel(&again, back); err != nil || !bytes.Equal(again.Bytes(), b.Bytes()) || back.Hash() != want.Hash() {
			t.Errorf("%s: read back, another model (%v)", order, err)
		}
		// Resume from the second checkpoint.
		st := states[1]
		o := opts
		o.Checkpoint = nil
		start, loop, err := NewLoop(sents, o)
		if err != nil {
			t.Fatal(err)
		}
		from, err := start.FromSnapshot(st.Model)
		if err != nil {
			t.Fatalf("%s: %v", order, err)
		}
		loop.Resume = &rundir.State[*Model]{Stage: st.Stage, StageIters: st.StageIters, Before: st.Before, Prev: st.Prev, Model: from}
		res, err := loop.Run(start)
		if err != nil {
			t.Fatal(err)
		}
		var resumed bytes.Buffer
		if err := WriteModel(&resumed, res.Model); err != nil || !bytes.Equal(resumed.Bytes(), b.Bytes()) {
			t.Errorf("%s: resumed after %d iterations, another model (%v)", order, st.StageIters, err)
		}
		snaps[order] = st.Model
	}
	for _, order := range []Order{Released, RightFirstOrder, Mixture, Footnote8} {
		start, err := Start(sents, Options{Order: order})
		if err != nil {
			t.Fatal(err)
		}
		for other, s := range snaps {
			if _, err := start.FromSnapshot(s); (err == nil) != (other == order) {
				t.Errorf("a %s checkpoint given to a %s run: error %v", other, order, err)
			}
		}
	}
	// Footnote 8's tables off their distribution are refused.
	s := snaps[Footnote8]
	s.Halt = append([]float64(nil), s.Halt...)
	s.Halt[0] += 0.5
	start, _ := Start(sents, Options{Order: Footnote8})
	if _, err := start.FromSnapshot(s); err == nil || !strings.Contains(err.Error(), "footnote 8") {
		t.Errorf("a footnote-8 state summing to 1.5: error %v", err)
	}
}

// DA and SDA run under the mixture and footnote 8, and DA at β = 1 alone is
// EM to the bit.
func TestOrderFamiliesAnneal(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	sents := randomSentences(rng, 20, 6, 4)
	for _, order := range []Order{Mixture, Footnote8} {
		em, _, err := Train(sents, Options{MaxIter: 3, Tol: 1e-300, Order: order})
		if err != nil {
			t.Fatal(err)
		}
		da, _, err := Train(sents, Options{MaxIter: 3, Tol: 1e-300, Order: order, Estimator: ccm.DA, Beta0: 1, Gamma: 2})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(em.Snapshot())
		b, _ := json.Marshal(da.Snapshot())
		if string(a) != string(b) {
			t.Errorf("%s: DA at β = 1 differs from EM", order)
		}
		sda, _, err := Train(sents, Options{MaxIter: 2, Tol: 1e-300, Order: order, Estimator: ccm.SDA, Beta0: 0.3, Gamma: 2})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteModel(&buf, sda); err != nil {
			t.Errorf("%s: SDA's model: %v", order, err)
		}
	}
	if _, _, err := Train(sents, Options{MaxIter: 2, FlatCCM: true, Estimator: ccm.DA}); err == nil {
		t.Error("DA with a flat CCM: no error")
	}
}
