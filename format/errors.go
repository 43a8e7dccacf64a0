package format

import "fmt"

// SyntaxError is a malformed record in a treebank file, at a 1-based line.
// Readers return it; the caller, who knows the file's name, places it
// (pipeline.Locate).
type SyntaxError struct {
	Line int
	Err  error
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *SyntaxError) Unwrap() error { return e.Err }

// syntaxErrorf makes a SyntaxError at line.
func syntaxErrorf(line int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Line: line, Err: fmt.Errorf(format, args...)}
}
