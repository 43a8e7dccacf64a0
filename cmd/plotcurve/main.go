// Command plotcurve draws learning curves from training logs.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("plotcurve")) }
