// Command decode parses sentences with a DMV model.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers decode
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("decode")) }
