// Command tagmap maps the tags of sentences through a table.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers tagmap
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("tagmap")) }
