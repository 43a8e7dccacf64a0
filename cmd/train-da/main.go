// Command train-da trains a DMV by deterministic annealing or skewed DA.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("train-da")) }
