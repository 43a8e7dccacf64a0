// Command decode parses sentences with a DMV model.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("decode")) }
