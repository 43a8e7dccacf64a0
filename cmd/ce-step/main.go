// Command ce-step takes one step of contrastive estimation's L-BFGS from
// two count files and a state file: CE as a shell loop.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands/cecmd" // registers ce-step
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("ce-step")) }
