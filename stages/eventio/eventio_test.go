package eventio

import (
	"strings"
	"testing"

	"github.com/grind-nlp/grind/format"
	"github.com/grind-nlp/grind/pipeline"
)

// A model named "-" with no stdin to read is an error, not a nil reader
// (train-em -m -, select-model - and others crashed on one).
func TestReadModelStdinWithoutStdin(t *testing.T) {
	k := Kind{Families: []string{"dmv"}, Add: func(*format.Event) error { return nil }, Key: func(e *format.Event) string { return e.Ev }}
	_, err := ReadModel(pipeline.Source{Names: []string{"-"}}, "-", k)
	if err == nil || !strings.Contains(err.Error(), "not stdin") {
		t.Fatalf("ReadModel of - without stdin: %v", err)
	}
}
