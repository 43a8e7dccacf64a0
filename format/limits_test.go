package format

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/grind-nlp/grind/internal/lines"
)

// Every treebank reader stops at a line longer than lines.MaxLine with an
// error naming the line, without reading the rest into memory.
func TestReadersRefuseOverlongLines(t *testing.T) {
	defer func(old int) { lines.MaxLine = old }(lines.MaxLine)
	lines.MaxLine = 1000
	long := strings.Repeat("x", 50000) // past the PTB reader's first read
	conll := "1\ta\t_\tA\tA\t_\t0\troot\t_\t_\n\n1\t" + long + "\t_\tA\tA\t_\t0\troot\t_\t_\n"
	dp := "a\tA\t0\n\n" + long + "\tA\t0\n"
	ptb := "(S (A a))\n(S (A " + long + "))\n"
	deep := "(S (A a))\n" + strings.Repeat("(S ", 30000) + "(A a)" + strings.Repeat(")", 30000) + "\n"
	for name, read := range map[string]func() error{
		"conll": func() error { return readAll(NewCoNLLReader(strings.NewReader(conll)).Next) },
		"dp":    func() error { return readAll(NewDPReader(strings.NewReader(dp)).Next) },
		"ptb":   func() error { return readAllTrees(NewPTBReader(strings.NewReader(ptb)).Next) },
		"deep":  func() error { return readAllTrees(NewPTBReader(strings.NewReader(deep)).Next) },
	} {
		err := read()
		var long *lines.TooLongError
		if !errors.As(err, &long) || long.Line != 2 && long.Line != 3 {
			t.Errorf("%s: %v, want a line too long at line 2 or 3", name, err)
		} else if !strings.Contains(err.Error(), "longer than 1000 bytes") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A long line just under the limit is fine.
	if err := readAllTrees(NewPTBReader(strings.NewReader("(S (A " + strings.Repeat("x", 900) + "))\n")).Next); err != nil {
		t.Errorf("900 bytes: %v", err)
	}
}

func readAll(next func() (*CoNLLSentence, error)) error {
	for {
		if _, err := next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

func readAllTrees(next func() (*Tree, error)) error {
	for {
		if _, err := next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}
