// Command dmv-init makes a starting DMV model from a corpus.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers dmv-init
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("dmv-init")) }
