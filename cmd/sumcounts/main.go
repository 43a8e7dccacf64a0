// Command sumcounts adds count shards.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("sumcounts")) }
