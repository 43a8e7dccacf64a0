// Command tagged2sents reads POS-tagged text (Brown, CoNLL-2000) into sentence records.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers tagged2sents
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("tagged2sents")) }
