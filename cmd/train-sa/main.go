// Command train-sa trains a DMV by structural annealing of a locality or
// segmentation bias.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("train-sa")) }
