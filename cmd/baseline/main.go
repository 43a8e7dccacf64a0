// Command baseline adds trivial predicted trees: left, right or random.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers baseline
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("baseline")) }
