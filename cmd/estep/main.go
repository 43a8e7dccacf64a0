// Command estep computes expected DMV counts of a corpus under a model (one E-step).
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands/program"
	_ "github.com/grind-nlp/grind/commands/stepcmd" // registers estep: a binary without the trainers, which starts faster
)

func main() { os.Exit(program.Main("estep")) }
