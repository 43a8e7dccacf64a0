package commands

// The tests run estep, mstep and sumcounts beside the programs of this
// package: they live in a package of their own so that their binaries
// carry no trainer.
import _ "github.com/grind-nlp/grind/commands/stepcmd"
