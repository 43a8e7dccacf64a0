package format

import (
	"math"
	"strings"
	"testing"
)

func TestEventRoundTrip(t *testing.T) {
	for _, line := range []string{
		`{"ev":"root","arg":"VBD","p":0.4}`,
		`{"ev":"child","head":"VBD","dir":"right","arg":"NN","n":12.5}`,
		`{"ev":"stop","head":"VBD","dir":"left","adj":true,"n":3}`,
		`{"ev":"cont","head":"VBD","dir":"left","adj":false,"w":-1.25e-07}`,
		`{"ev":"stats","sentences":5301,"tokens":37000,"loglik":-123456.7}`,
		`{"ev":"stats","sentences":1,"tokens":2,"loglik":"-inf"}`,
		`{"ev":"stats","sentences":7,"tokens":20,"loglik":-3.5,"left_out":2}`,
		`{"ev":"span","yield":["DT","NN"],"constituent":true,"p":0.0123}`,
		`{"ev":"span","yield":[],"constituent":false,"n":4}`,
		`{"ev":"context","left":"<>","right":"VBD","constituent":false,"p":0.004}`,
		`{"ev":"unseen_span","constituent":true,"length":3,"p":1.2e-05}`,
		`{"ev":"unseen_context","constituent":false,"p":3.4e-06}`,
		`{"ev":"span","yield":["DT","NN"],"constituent":true,"class":2,"p":0.0211}`,
		`{"ev":"context","left":"<>","right":"VBD","constituent":true,"class":11,"n":0.5}`,
		`{"ev":"unseen_span","constituent":true,"class":1,"length":0,"p":1.1e-05}`,
		`{"ev":"unseen_context","constituent":true,"class":3,"p":2e-06}`,
		`{"ev":"header","family":"ccm-classes","unit":"p","events":4113,"classes":3}`,
		`{"ev":"halt","head":"VBD","left_adj":true,"right_adj":false,"p":0.25}`,
		`{"ev":"go","head":"VBD","dir":"left","left_adj":false,"right_adj":true,"n":1.5}`,
		`{"ev":"header","family":"dmv","unit":"p","events":26}`,
		`{"ev":"header","family":"dmv","unit":"p","events":26,"vb_alpha":0.01}`,
		`{"ev":"header","family":"dmv","unit":"p","events":26,"stop_valence":3,"child_valence":2,"refine":"ending"}`,
		`{"ev":"header","family":"dmv","unit":"p","events":26,"vb_alpha":1,"vb_bound":-1234.5678901234567}`,
		`{"ev":"header","family":"dmv","unit":"p","events":26,"vb_alpha":0.5,"vb_bound":"-inf"}`,
	} {
		var e Event
		if err := Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		back, err := Marshal(e)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if string(back) != line {
			t.Errorf("round trip: %s became %s", line, back)
		}
	}
	// The codec's road (white space) reads footnote 8's events as the
	// scanner does.
	var spaced Event
	if err := Unmarshal([]byte(`{"ev": "go", "head": "A", "dir": "right", "left_adj": false, "right_adj": true, "p": 0.5}`), &spaced); err != nil {
		t.Fatal(err)
	}
	if back, _ := Marshal(spaced); string(back) != `{"ev":"go","head":"A","dir":"right","left_adj":false,"right_adj":true,"p":0.5}` {
		t.Errorf("spaced go event read as %s", back)
	}
	// and the multi-class CCM's class and classes.
	for spacedLine, want := range map[string]string{
		`{"ev": "span", "yield": ["A"], "class": 4, "constituent": true, "n": 2}`:                                        `{"ev":"span","yield":["A"],"constituent":true,"class":4,"n":2}`,
		`{"ev": "header", "family": "ccm-classes", "unit": "n", "events": 2, "classes": 5, "model": "m", "corpus": "c"}`: `{"ev":"header","family":"ccm-classes","unit":"n","events":2,"model":"m","corpus":"c","classes":5}`,
	} {
		var e Event
		if err := Unmarshal([]byte(spacedLine), &e); err != nil {
			t.Fatal(err)
		}
		if back, _ := Marshal(e); string(back) != want {
			t.Errorf("%s read as %s", spacedLine, back)
		}
	}
	var e Event
	Unmarshal([]byte(`{"ev":"stats","sentences":1,"tokens":2,"loglik":"-inf"}`), &e)
	if !math.IsInf(e.Stats.Loglik, -1) {
		t.Errorf("loglik %v, want -Inf", e.Stats.Loglik)
	}
}

func TestEventErrors(t *testing.T) {
	for line, want := range map[string]string{
		`{"ev":"stop","head":"A","dir":"left","n":1}`:                              `"stop" event without "adj"`,
		`{"ev":"child","head":"A","dir":"up","arg":"B","n":1}`:                     `dir must be "left" or "right", not "up"`,
		`{"ev":"root","arg":"A","n":1,"p":0.5}`:                                    `needs exactly one of "n", "p", "w"`,
		`{"ev":"root","arg":"A"}`:                                                  `needs exactly one of "n", "p", "w"`,
		`{"ev":"split","arg":"A","n":1}`:                                           `unknown event kind "split"`,
		`{"ev":"span","yield":["A"],"constituent":false,"class":1,"n":1}`:          `"span" event with "class" and "constituent":false: the distituents have no class`,
		`{"ev":"span","yield":["A"],"constituent":true,"class":0,"n":1}`:           `"span" event of class 0`,
		`{"ev":"root","arg":"A","class":1,"n":1}`:                                  `"root" event with "class": only the CCM's`,
		`{"ev":"span","yield":["A"],"constituent":true,"class":1,"class":2,"n":1}`: `given twice`,
		`{"ev":"header","family":"ccm-classes","unit":"p","events":2,"classes":1}`: `header with 1 classes: a multi-class CCM has 2 or more`,
		`{"ev":"span","constituent":true,"n":1}`:                                   `"span" event without "yield"`,
		`{"ev":"span","yield":["A"],"n":1}`:                                        `"span" event without "constituent"`,
		`{"ev":"context","left":"A","constituent":true,"n":1}`:                     `"context" event without "right"`,
		`{"ev":"unseen_span","constituent":true,"p":1}`:                            `"unseen_span" event without "length"`,
		`{"ev":"unseen_span","constituent":true,"length":-1,"p":1}`:                `length -1`,
		`{"arg":"A","n":1}`:                  `record without "ev"`,
		`{"ev":"stats","tokens":3}`:          `"stats" event without "sentences"`,
		`{"ev":"root","arg":"A","n":"many"}`: `not a number`,
		`["root"]`:                           `must be a JSON object`,
		`{"ev":"child","head":"A","dir":"left","arg":"B","n":tru}`:                                   `n`,
		`{"ev":"header","family":"hmm","unit":"p","events":2,"refine":"ending"}`:                     `only a DMV model ("p" or "w") refines its tags`,
		`{"ev":"header","family":"dmv","unit":"n","events":2,"model":"a","corpus":"b","refine":"x"}`: `only a DMV model ("p" or "w") refines its tags`,
		`{"ev":"header","family":"dmv","unit":"p","events":2,"vb_alpha":0}`:                          `"vb_alpha" 0: want a finite number > 0`,
		`{"ev":"header","family":"dmv","unit":"p","events":2,"vb_alpha":"inf"}`:                      `"vb_alpha" +Inf: want a finite number > 0`,
		`{"ev":"header","family":"dmv","unit":"p","events":2,"vb_alpha":1,"vb_bound":"inf"}`:         `"vb_bound" +Inf: want a number or "-inf"`,
		`{"ev":"header","family":"dmv","unit":"w","events":2,"vb_alpha":1}`:                          `header of unit "w" with "vb_alpha"`,
		`{"ev":"header","family":"dmv","unit":"n","events":2,"model":"x","corpus":"y","vb_alpha":1}`: `header of unit "n" with "vb_alpha"`,
		`{"ev":"header","family":"dmv","unit":"p","events":2,"vb_bound":-3}`:                         `"vb_bound" but no "vb_alpha"`,
		`{"ev":"header","family":"dmv","unit":"p","events":2,"vb_alpha":1,"vb_alpha":2}`:             `given twice`,
		`{"ev":"halt","head":"A","left_adj":true,"p":1}`:                                             `"halt" event without "right_adj"`,
		`{"ev":"go","left_adj":true,"right_adj":true,"dir":"left","p":1}`:                            `"go" event without "head"`,
		`{"ev":"go","head":"A","left_adj":true,"right_adj":true,"p":1}`:                              `dir must be "left" or "right"`,
		`{"ev":"halt","head":"A","dir":"left","left_adj":true,"right_adj":true,"p":1}`:               `"halt" event with "dir"`,
		`{"ev":"stop","head":"A","dir":"left","adj":true,"left_adj":true,"n":1}`:                     `only halt and go have them`,
		`{"ev": "go", "head": "A", "dir": "left", "left_adj": true, "n": 1}`:                         `"go" event without "right_adj"`,
	} {
		var e Event
		err := Unmarshal([]byte(line), &e)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", line, err, want)
		}
	}
}
