// Command train-em trains a DMV by EM, MAP/EM or Viterbi EM.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("train-em")) }
