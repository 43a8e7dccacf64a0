// Command tagged2sents reads POS-tagged text (Brown, CoNLL-2000) into sentence records.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands"
)

func main() { os.Exit(commands.Main("tagged2sents")) }
