// Command ptbstrip cleans Penn Treebank trees into sentence records.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers ptbstrip
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("ptbstrip")) }
