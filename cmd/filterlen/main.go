// Command filterlen keeps the sentences whose length is in a range.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers filterlen
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("filterlen")) }
