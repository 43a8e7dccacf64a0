// Command score-tags scores induced tags against gold ones.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers score-tags
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("score-tags")) }
