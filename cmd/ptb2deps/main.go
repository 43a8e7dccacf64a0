// Command ptb2deps converts Penn Treebank trees to dependency sentences
// with head rules.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("ptb2deps")) }
