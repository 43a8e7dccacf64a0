// Command train-ccm trains a CCM, CCM2 or DMV+CCM on a corpus of tag
// sequences and writes the sentences back with their predicted brackets.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers train-ccm
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("train-ccm")) }
