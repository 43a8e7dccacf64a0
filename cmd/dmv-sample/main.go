// Command dmv-sample draws sentences and their trees from a DMV model.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers dmv-sample
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("dmv-sample")) }
