// Command train-em trains a DMV by EM, MAP/EM or Viterbi EM.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers train-em
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("train-em")) }
