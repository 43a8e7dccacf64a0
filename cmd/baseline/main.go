// Command baseline adds trivial predicted trees: left, right or random.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("baseline")) }
