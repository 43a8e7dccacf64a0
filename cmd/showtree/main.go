// Command showtree draws dependency trees in the terminal.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers showtree
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("showtree")) }
