// Command gendocs writes grind's man pages and shell completions (bash,
// zsh, fish) from the programs' own flags, at build time: make build
// runs it into share/, make install copies that tree. None of this is in
// the programs' start-up path.
//
//	go run ./internal/gendocs -o share
//
// writes, under the folder given, the tree a prefix's share/ holds:
//
//	man/man1/PROGRAM.1                        every program's page, and grind.1
//	bash-completion/completions/grind         one script for every program (the other names link to it)
//	zsh/site-functions/_grind                 one function for every program
//	fish/vendor_completions.d/PROGRAM.fish    one file per program, and grind.fish
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("o", "share", "the `FOLDER` to write to")
	flag.Parse()
	if err := write(*out, programs()); err != nil {
		fmt.Fprintf(os.Stderr, "gendocs: %v\n", err)
		os.Exit(1)
	}
}
