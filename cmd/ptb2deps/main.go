// Command ptb2deps converts Penn Treebank trees to dependency sentences
// with head rules.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers ptb2deps
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("ptb2deps")) }
