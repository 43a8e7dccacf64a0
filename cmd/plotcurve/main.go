// Command plotcurve draws learning curves from training logs.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
	_ "github.com/grind-nlp/grind/commands/plotcmd" // registers plotcurve
)

func main() { os.Exit(commands.Main("plotcurve")) }
