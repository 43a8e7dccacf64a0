// Command dmv-init makes a starting DMV model from a corpus.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("dmv-init")) }
