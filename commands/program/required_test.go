package program

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// Every kind of required flag is checked by the program itself: missing,
// it is a usage error that names it; given, the action runs.
func TestCheckRequiredFlagsEveryKind(t *testing.T) {
	newApp := func(ran *bool) *cli.App {
		app := &cli.App{
			Name: "t",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "s", Required: true, Usage: "`S`"},
				&cli.IntFlag{Name: "i", Required: true, Usage: "`I`"},
				&cli.Float64Flag{Name: "f", Required: true, Usage: "`F`"},
				&cli.StringSliceFlag{Name: "l", Required: true, Usage: "`L`"},
			},
			Action: func(*cli.Context) error { *ran = true; return nil },
		}
		checkRequiredFlags(app)
		return app
	}
	all := []string{"t", "--s", "a", "--i", "1", "--f", "0.5", "--l", "x"}
	for drop, want := range []string{"missing --s S", "missing --i I", "missing --f F", "missing --l L"} {
		var ran bool
		args := append(append([]string{}, all[:1+2*drop]...), all[3+2*drop:]...)
		err := newApp(&ran).Run(args)
		if err == nil || !strings.Contains(err.Error(), want) || ran {
			t.Errorf("%v: error %v, action ran %v; want %q and no run", args[1:], err, ran, want)
		}
	}
	var ran bool
	if err := newApp(&ran).Run(all); err != nil || !ran {
		t.Errorf("every flag given: error %v, action ran %v", err, ran)
	}
}
