// Command estep computes expected DMV counts of a corpus under a model (one E-step).
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("estep")) }
