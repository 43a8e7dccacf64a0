// Command score measures predicted dependency trees against gold ones.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers score
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("score")) }
