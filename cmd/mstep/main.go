// Command mstep makes a DMV model from expected counts (one M-step).
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("mstep")) }
