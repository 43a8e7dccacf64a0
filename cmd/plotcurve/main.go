// Command plotcurve draws learning curves from training logs.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands/plotcmd" // registers plotcurve
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("plotcurve")) }
