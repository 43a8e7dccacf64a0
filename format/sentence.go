package format

import (
	"errors"
	"fmt"
	"io"

	jsoniter "github.com/json-iterator/go"
)

// Sentence is the record every stage passes on, one JSON line each:
//
//	{"id":"wsj_0001.mrg#1","words":["Pierre","Vinken"],"tags":["NNP","NNP"],"heads":[2,0]}
//
// Heads and Pred are 1-based with 0 for the root; they are absent when the
// sentence has no gold tree or no prediction. Tree keeps the PTB bracketing
// when the sentence came from a constituency treebank.
type Sentence struct {
	ID    string   `json:"id,omitempty"`
	Words []string `json:"words,omitempty"`
	Tags  []string `json:"tags"`
	Heads []int    `json:"heads,omitempty"`
	Pred  []int    `json:"pred,omitempty"`
	Tree  string   `json:"tree,omitempty"`
}

// Len is the number of tokens.
func (s *Sentence) Len() int { return len(s.Tags) }

// Validate checks what every stage relies on: matching lengths, heads in
// range, and head arrays that form trees (no cycles).
func (s *Sentence) Validate() error {
	n := len(s.Tags)
	if n == 0 {
		return errors.New("sentence has no tokens")
	}
	if s.Words != nil && len(s.Words) != n {
		return fmt.Errorf("%d words but %d tags", len(s.Words), n)
	}
	for i, t := range s.Tags {
		if t == "" {
			return fmt.Errorf("token %d has an empty tag", i+1)
		}
	}
	if s.Heads != nil {
		if err := ValidateHeads(s.Heads, n); err != nil {
			return fmt.Errorf("heads: %w", err)
		}
	}
	if s.Pred != nil {
		if err := ValidateHeads(s.Pred, n); err != nil {
			return fmt.Errorf("pred: %w", err)
		}
	}
	return nil
}

// ValidateHeads checks that heads has n entries in 0..n and that following
// heads from any token reaches the root without a cycle. Several tokens may
// attach to the root (treebanks with punctuation removed have such trees).
func ValidateHeads(heads []int, n int) error {
	if len(heads) != n {
		return fmt.Errorf("%d heads for %d tokens", len(heads), n)
	}
	for i, h := range heads {
		if h < 0 || h > n {
			return fmt.Errorf("token %d has head %d, outside 0..%d", i+1, h, n)
		}
		if h == i+1 {
			return fmt.Errorf("token %d is its own head", i+1)
		}
	}
	// state: 0 unvisited, 1 on the current path, 2 reaches the root.
	state := make([]uint8, n+1)
	state[0] = 2
	for start := 1; start <= n; start++ {
		path := start
		for state[path] == 0 {
			state[path] = 1
			path = heads[path-1]
		}
		if state[path] == 1 {
			return fmt.Errorf("cycle in heads through token %d", path)
		}
		for path = start; state[path] == 1; path = heads[path-1] {
			state[path] = 2
		}
	}
	return nil
}

// UnmarshalJSON reads a sentence with the codec's streaming iterator
// rather than by reflection: corpora are read on every run of estep, so
// this is on the shell loop's path. Unknown fields are skipped.
func (s *Sentence) UnmarshalJSON(data []byte) error {
	it := codec.BorrowIterator(data)
	defer codec.ReturnIterator(it)
	*s = Sentence{}
	if it.WhatIsNext() != jsoniter.ObjectValue {
		return errors.New("a sentence must be a JSON object")
	}
	for field := it.ReadObject(); field != "" && it.Error == nil; field = it.ReadObject() {
		switch field {
		case "id":
			s.ID = it.ReadString()
		case "words":
			s.Words = readStrings(it)
		case "tags":
			s.Tags = readStrings(it)
		case "heads":
			s.Heads = readInts(it)
		case "pred":
			s.Pred = readInts(it)
		case "tree":
			s.Tree = it.ReadString()
		default:
			it.Skip()
		}
	}
	if it.Error != nil && it.Error != io.EOF {
		return it.Error
	}
	return nil
}

// readStrings reads an array of strings; null is nil, [] is empty.
func readStrings(it *jsoniter.Iterator) []string {
	if it.ReadNil() {
		return nil
	}
	out := []string{}
	for it.ReadArray() {
		out = append(out, it.ReadString())
	}
	return out
}

// readInts reads an array of integers; null is nil, [] is empty.
func readInts(it *jsoniter.Iterator) []int {
	if it.ReadNil() {
		return nil
	}
	out := []int{}
	for it.ReadArray() {
		out = append(out, it.ReadInt())
	}
	return out
}
