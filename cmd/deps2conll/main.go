// Command deps2conll writes sentence records as CoNLL-U or CoNLL-X.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("deps2conll")) }
