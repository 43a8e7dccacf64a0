// Command showtree draws dependency trees in the terminal.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("showtree")) }
