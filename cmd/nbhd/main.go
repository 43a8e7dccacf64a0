// Command nbhd writes the neighbourhood lattices of contrastive estimation.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers nbhd
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("nbhd")) }
