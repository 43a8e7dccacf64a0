// Command train-ccm trains a CCM, CCM2 or DMV+CCM on a corpus of tag
// sequences and writes the sentences back with their predicted brackets.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("train-ccm")) }
