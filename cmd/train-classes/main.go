// Command train-classes induces word classes.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers train-classes
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("train-classes")) }
