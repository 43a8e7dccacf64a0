// Command score measures predicted dependency trees against gold ones.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("score")) }
