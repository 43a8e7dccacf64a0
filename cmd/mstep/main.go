// Command mstep makes a DMV model from expected counts (one M-step).
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands/program"
	_ "github.com/grind-nlp/grind/commands/stepcmd" // registers mstep: a binary without the trainers, which starts faster
)

func main() { os.Exit(program.Main("mstep")) }
