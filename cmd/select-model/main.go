// Command select-model ranks saved models on dev data and picks the best.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("select-model")) }
