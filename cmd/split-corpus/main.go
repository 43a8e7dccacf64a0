// Command split-corpus divides a corpus into train, dev and test files.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("split-corpus")) }
