// Command train-da trains a DMV by deterministic annealing or skewed DA.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers train-da
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("train-da")) }
