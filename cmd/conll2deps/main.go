// Command conll2deps turns CoNLL-U, CoNLL-X and NLTK .dp treebanks into sentence records.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers conll2deps
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("conll2deps")) }
