// Command nbhd writes the neighbourhood lattices of contrastive estimation.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("nbhd")) }
