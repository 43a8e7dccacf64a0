// Command score-tags scores induced tags against gold ones.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("score-tags")) }
