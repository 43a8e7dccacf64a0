package commands

import (
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/grind-nlp/grind/commands/program"
	"github.com/grind-nlp/grind/pipeline"
	"github.com/grind-nlp/grind/stages/tagmap"
)

func init() { program.Register("tagmap", tagmapApp) }

func tagmapApp() *cli.App {
	return &cli.App{
		Usage:     "map the tags of sentences through a table",
		UsageText: "tagmap (--table FILE | --builtin NAME) [options] [FILE...]",
		Description: `Replaces every tag by its image in a table; words, heads and the rest are
unchanged. A tag missing from the table is an error naming it and its line,
unless --keep-unknown leaves it as it is.

A table file has two whitespace-separated columns per line, "from to". A
field starting with # begins a comment that runs to the end of the line, so
the tag # itself is written \# (a leading backslash is dropped).

Built in: smith17, Smith's (2006, App. B) coarse classes of the Penn tags:
ADJ={$ # CD JJ JJR JJS PRP$ RB RBR RBS} CONJ={CC} DET={DT PDT} ENDPUNC={.}
INPUNC={, : LS SYM UH} LPUNC={` + "`` -LRB-" + `} N={EX FW NN NNP NNPS NNS PRP} POS
PREP={IN} PRT={RP} RPUNC={'' -RRB-} TO V={MD VBD VBP VB VBZ VBG} VBN
W={WDT WP$ WP WRB}. ptb2ud, the Penn tags (and the English Web Treebank's
extra XPOS tags: ADD AFX GW HYPH NFP XX) to UD v2 universal tags. ud1to2, UD
v1 universal tags to v2 (CONJ → CCONJ). A model trained on one tag set meets
another's files through these (decode refuses input none of whose tags the
model knows).

Examples:
   ptb2deps wsj/*/*.mrg | tagmap --builtin smith17 | filterlen 10 > wsj10-coarse.jsonl
   tagmap --builtin smith17 --print-table > mytags.txt   # edit, then:
   tagmap --table mytags.txt corpus.jsonl -o coarse.jsonl`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "table", TakesFile: true, Usage: "read the map from `FILE` (\"from to\" per line)"},
			&cli.StringFlag{Name: "builtin", Usage: "use a built-in map: `NAME` is " + strings.Join(tagmap.Builtins(), ", ")},
			&cli.BoolFlag{Name: "keep-unknown", Usage: "leave tags the table lacks unchanged instead of failing"},
			&cli.BoolFlag{Name: "print-table", Usage: "print the table in the --table format and exit"},
			program.OutputFlag(), program.SkipBadFlag(), program.QuietFlag(),
		},
		Action: func(c *cli.Context) error {
			var table tagmap.Table
			switch file, name := c.String("table"), c.String("builtin"); {
			case file != "" && name != "":
				return program.Usagef("give --table or --builtin, not both")
			case file != "":
				err := pipeline.EachInput([]string{file}, c.App.Reader, func(in *pipeline.Input) error {
					var err error
					table, err = tagmap.ReadTable(in)
					return err
				})
				if err != nil {
					return err
				}
			case name != "":
				var err error
				if table, err = tagmap.Builtin(name); err != nil {
					return program.Usagef("%v", err)
				}
			default:
				return program.Usagef("missing the table: give --table FILE or --builtin NAME")
			}
			if c.Bool("print-table") {
				if c.NArg() > 0 {
					return program.Usagef("--print-table reads no input")
				}
				return pipeline.WriteFile(c.String("output"), c.App.Writer, func(o *pipeline.Output) error { return table.Write(o) })
			}
			opts := tagmap.Options{Table: table, KeepUnknown: c.Bool("keep-unknown")}
			src := program.Source(c)
			return program.WriteOutput(c, src, func(w io.Writer) error {
				return tagmap.Map(src, w, opts)
			})
		},
	}
}
