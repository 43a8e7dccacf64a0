package reportcmd

// The tests make run directories with the trainers and the converters.
import _ "github.com/grind-nlp/grind/commands"
