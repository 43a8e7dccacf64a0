// Command train-ce trains a log-linear DMV by contrastive estimation.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands/cecmd" // registers train-ce
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("train-ce")) }
