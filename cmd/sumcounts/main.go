// Command sumcounts adds count shards.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands/program"
	_ "github.com/grind-nlp/grind/commands/stepcmd" // registers sumcounts: a binary without the trainers, which starts faster
)

func main() { os.Exit(program.Main("sumcounts")) }
