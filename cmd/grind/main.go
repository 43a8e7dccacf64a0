// Command grind lists grind's programs and runs "grind PROGRAM …".
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands/grindcmd"
)

func main() { os.Exit(grindcmd.Main()) }
