// Command filterlen keeps the sentences whose length is in a range.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("filterlen")) }
