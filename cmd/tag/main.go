// Command tag tags sentences with an HMM model.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("tag")) }
