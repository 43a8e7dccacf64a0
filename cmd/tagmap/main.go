// Command tagmap maps the tags of sentences through a table.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("tagmap")) }
