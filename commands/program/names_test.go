package program

import (
	"reflect"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestCacheNames: a wrapped flag has its flag's names, help line and
// interfaces, no category, and unwraps to the very flag; a flag of a kind
// cacheNames does not know stays as it is.
func TestCacheNames(t *testing.T) {
	flags := []cli.Flag{
		&cli.BoolFlag{Name: "hard", Aliases: []string{"H"}, Usage: "hard counts", Category: "A"},
		&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "the model `FILE`", TakesFile: true, Category: "B"},
		&cli.IntFlag{Name: "workers", Value: 2, Usage: "`N` workers"},
		&cli.Float64Flag{Name: "beta", Value: 1, Usage: "β"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "the seed"},
		&cli.StringSliceFlag{Name: "rules", Usage: "rule files"},
		&cli.DurationFlag{Name: "every", Usage: "a kind not wrapped"},
	}
	app := &cli.App{Flags: append([]cli.Flag(nil), flags...)}
	cacheNames(app)
	for i, f := range app.Flags {
		orig := flags[i]
		if Unwrap(f) != orig {
			t.Errorf("%s: Unwrap gives %T, not the flag", orig.Names()[0], Unwrap(f))
		}
		if _, ok := orig.(*cli.DurationFlag); ok {
			if f != orig {
				t.Errorf("a flag of a kind not known was wrapped: %T", f)
			}
			continue
		}
		if f == orig {
			t.Errorf("%s not wrapped", orig.Names()[0])
		}
		if !reflect.DeepEqual(f.Names(), orig.Names()) || f.String() != orig.String() {
			t.Errorf("%s: names %q, help %q; want %q, %q", orig.Names()[0], f.Names(), f.String(), orig.Names(), orig.String())
		}
		for _, iface := range []reflect.Type{
			reflect.TypeFor[cli.DocGenerationFlag](), reflect.TypeFor[cli.RequiredFlag](),
			reflect.TypeFor[cli.VisibleFlag](), reflect.TypeFor[cli.ActionableFlag](),
		} {
			if reflect.TypeOf(orig).Implements(iface) && !reflect.TypeOf(f).Implements(iface) {
				t.Errorf("%s: the wrapper is no %v", orig.Names()[0], iface)
			}
		}
		if c := f.(cli.CategorizableFlag).GetCategory(); c != "" {
			t.Errorf("%s: the wrapper has category %q", orig.Names()[0], c)
		}
	}
	if c := Unwrap(app.Flags[1]).(cli.CategorizableFlag).GetCategory(); c != "B" {
		t.Errorf("unwrapped category %q, want B", c)
	}
}
