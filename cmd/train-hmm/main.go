// Command train-hmm induces part-of-speech tags with an HMM.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers train-hmm
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("train-hmm")) }
