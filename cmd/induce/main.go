// Command induce induces a grammar for a new language without annotation.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers induce
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("induce")) }
