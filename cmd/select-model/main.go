// Command select-model ranks saved models on dev data and picks the best.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers select-model
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("select-model")) }
