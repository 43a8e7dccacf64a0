// Command train-ce trains a log-linear DMV by contrastive estimation.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
	_ "github.com/grind-nlp/grind/commands/cecmd" // registers train-ce
)

func main() { os.Exit(commands.Main("train-ce")) }
