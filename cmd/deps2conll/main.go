// Command deps2conll writes sentence records as CoNLL-U or CoNLL-X.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers deps2conll
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("deps2conll")) }
