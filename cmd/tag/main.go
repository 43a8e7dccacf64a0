// Command tag tags sentences with an HMM model.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers tag
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("tag")) }
