// Command split-corpus divides a corpus into train, dev and test files.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers split-corpus
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("split-corpus")) }
