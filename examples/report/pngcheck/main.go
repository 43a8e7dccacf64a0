// Command pngcheck exits non-zero when a PNG looks blank: fewer than
// -colors distinct colours, or less than -ink of its pixels away from
// white. examples/report/test.sh runs it on a browser's screenshot.
package main

import (
	"flag"
	"fmt"
	"image"
	_ "image/png"
	"os"
)

func main() {
	minColors := flag.Int("colors", 16, "distinct colours at least")
	minInk := flag.Float64("ink", 0.01, "fraction of pixels that are not white, at least")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: pngcheck [-colors N] [-ink F] FILE.png")
		os.Exit(2)
	}
	name := flag.Arg(0)
	f, err := os.Open(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pngcheck:", err)
		os.Exit(1)
	}
	img, _, err := image.Decode(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pngcheck: %s: %v\n", name, err)
		os.Exit(1)
	}
	b := img.Bounds()
	colors := map[[4]uint32]bool{}
	ink := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			colors[[4]uint32{r, g, bl, a}] = true
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				ink++
			}
		}
	}
	frac := float64(ink) / float64(b.Dx()*b.Dy())
	fmt.Printf("%s: %dx%d, %d colours, %.1f%% of pixels not white\n", name, b.Dx(), b.Dy(), len(colors), 100*frac)
	if len(colors) < *minColors || frac < *minInk {
		fmt.Fprintf(os.Stderr, "pngcheck: %s looks blank (want %d colours and %.1f%% not white)\n", name, *minColors, 100**minInk)
		os.Exit(1)
	}
}
