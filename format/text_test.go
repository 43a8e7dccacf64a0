package format

import (
	"slices"
	"strings"
	"testing"
)

func TestTokenTextAndCheckText(t *testing.T) {
	// "I don't know." with "do n't" one token and no space before ".".
	s := Sentence{Words: []string{"I", "do", "n't", "know", "."}, Tags: []string{"PRON", "AUX", "PART", "VERB", "PUNCT"},
		Multiword: []Multiword{{First: 2, Last: 3, Form: "don't"}}, NoSpaceAfter: []int{4}}
	if got := s.TokenText(); got != "I don't know." {
		t.Fatalf("TokenText %q", got)
	}
	for text, want := range map[string]string{
		"":                  "",
		"I don't know.":     "",
		"I  don't\tknow.":   "", // any white space where a space goes, as the validator reads it
		"I don't know .":    `does not match token 4 "."`,
		"I do n't know.":    `does not match token 2 "don't"`,
		"Idon't know.":      `has no space after token 1 "I"`,
		"I don't know. Yes": `goes on after the last token: "Yes"`,
		"I don't know. ":    "ends with white space",
		"I don't\nknow.":    "line break",
	} {
		s.Text = text
		err := s.CheckText()
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	// Without words the tags are the forms.
	tags := Sentence{Tags: []string{"DT", "NN"}}
	if got := tags.TokenText(); got != "DT NN" {
		t.Errorf("TokenText of tags %q", got)
	}
}

func TestSpacesFromText(t *testing.T) {
	s := Sentence{Words: []string{"\"", "Hello", ",", "\"", "she", "said", "."}, Tags: []string{"A", "B", "C", "D", "E", "F", "G"}, NoSpaceAfter: []int{2, 7}}
	for text, want := range map[string][]int{
		`"Hello," she said.`:     {1, 2, 3, 6, 7}, // the last token's entry kept from before
		`" Hello , " she said .`: {7},
		`"Hello,"she said.`:      {1, 2, 3, 4, 6, 7},
		`"Hello," he said.`:      nil, // not the forms: nothing changes
		`"Hello," she said. x`:   nil,
	} {
		c := s
		c.Text = text
		ok := c.SpacesFromText()
		if want == nil {
			if ok || !slices.Equal(c.NoSpaceAfter, s.NoSpaceAfter) {
				t.Errorf("%q: %v, %v; want false and no change", text, ok, c.NoSpaceAfter)
			}
			continue
		}
		if !ok || !slices.Equal(c.NoSpaceAfter, want) {
			t.Errorf("%q: %v, %v; want %v", text, ok, c.NoSpaceAfter, want)
		}
		if err := c.CheckText(); err != nil {
			t.Errorf("%q: the spaces read from the text disagree with it: %v", text, err)
		}
	}
}
