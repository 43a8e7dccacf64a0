// Command report turns training runs into one self-contained HTML page.
package main

import (
	"os"

	"github.com/grind-nlp/grind/commands/program"
	_ "github.com/grind-nlp/grind/commands/reportcmd" // registers report
)

func main() { os.Exit(program.Main("report")) }
