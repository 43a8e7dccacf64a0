// Command train-sa trains a DMV by structural annealing of a locality or
// segmentation bias.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers train-sa
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("train-sa")) }
