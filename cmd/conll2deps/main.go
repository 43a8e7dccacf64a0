// Command conll2deps turns CoNLL-U, CoNLL-X and NLTK .dp treebanks into sentence records.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("conll2deps")) }
