// Command train-hmm induces part-of-speech tags with an HMM.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("train-hmm")) }
