// Command dmv-sample draws sentences and their trees from a DMV model.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("dmv-sample")) }
