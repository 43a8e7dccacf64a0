// Command tag-classes tags sentences with a class model.
package main

import (
	"os"

	_ "github.com/grind-nlp/grind/commands" // registers tag-classes
	"github.com/grind-nlp/grind/commands/program"
)

func main() { os.Exit(program.Main("tag-classes")) }
