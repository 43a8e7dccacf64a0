// Command ptbstrip cleans Penn Treebank trees into sentence records.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("ptbstrip")) }
