package headrules

import "strings"

// The head-rule tables of /work/shared/HEADRULES.md (Collins 1999, App. A;
// Yamada & Matsumoto 2003, as in Penn2Malt), as data. Each label has rules
// tried in order; see rule.find for what L, R, LD and RD mean.

// l, r: for each category in priority order, scan the children from the
// left (right) for it.
func l(cats string) rule { return rule{cats: strings.Fields(cats)} }
func r(cats string) rule { return rule{fromRight: true, cats: strings.Fields(cats)} }

// ld, rd: scan the children from the left (right) and take the first that
// is any of the categories.
func ld(cats string) rule { return rule{anyOf: true, cats: strings.Fields(cats)} }
func rd(cats string) rule { return rule{fromRight: true, anyOf: true, cats: strings.Fields(cats)} }

var collinsTable = &table{
	name: Collins,
	rules: map[string][]rule{
		"ADJP":   {l("NNS QP NN $ ADVP JJ VBN VBG ADJP JJR NP JJS DT FW RBR RBS SBAR RB")},
		"ADVP":   {r("RB RBR RBS FW ADVP TO CD JJR JJ IN NP JJS NN")},
		"CONJP":  {r("CC RB IN")},
		"FRAG":   {r("")},
		"INTJ":   {l("")},
		"LST":    {r("LS :")},
		"NAC":    {l("NN NNS NNP NNPS NP NAC EX $ CD QP PRP VBG JJ JJS JJR ADJP FW")},
		"PP":     {r("IN TO VBG VBN RP FW")},
		"PRN":    {l("")},
		"PRT":    {r("RP")},
		"QP":     {l("$ IN NNS NN JJ RB DT CD NCD QP JJR JJS")},
		"RRC":    {r("VP NP ADVP ADJP PP")},
		"S":      {l("TO IN VP S SBAR ADJP UCP NP")},
		"SBAR":   {l("WHNP WHPP WHADVP WHADJP IN DT S SQ SINV SBAR FRAG")},
		"SBARQ":  {l("SQ S SINV SBARQ FRAG")},
		"SINV":   {l("VBZ VBD VBP VB MD VP S SINV ADJP NP")},
		"SQ":     {l("VBZ VBD VBP VB MD VP SQ")},
		"UCP":    {r("")},
		"VP":     {l("TO VBD VBN MD VBZ VB VBG VBP VP ADJP NN NNS NP")},
		"WHADJP": {l("CC WRB JJ ADJP")},
		"WHADVP": {r("CC WRB")},
		"WHNP":   {l("WDT WP WP$ WHADJP WHPP WHNP")},
		"WHPP":   {r("IN TO FW")},
		// Collins' "a final POS is the head" is the first rule; when no
		// rule matches, the last child (the direction of the last rule).
		"NP": {rd("NN NNP NNPS NNS NX POS JJR"), l("NP"), rd("$ ADJP PRN"), r("CD"), rd("JJ JJS RB QP")},
	},
}

var ymTable = &table{
	name:      YM,
	skipPunct: true,
	rules: map[string][]rule{
		"ADJP":   {r("NNS QP NN $ ADVP JJ VBN VBG ADJP JJR NP JJS DT FW RBR RBS SBAR RB")},
		"ADVP":   {l("RB RBR RBS FW ADVP TO CD JJR JJ IN NP JJS NN")},
		"CONJP":  {l("CC RB IN")},
		"FRAG":   {l("")},
		"INTJ":   {r("")},
		"LST":    {l("LS :")},
		"NAC":    {rd("NN NNS NNP NNPS"), r("NP NAC EX $ CD QP PRP VBG JJ JJS JJR ADJP FW")},
		"NP":     {rd("POS NN NNP NNPS NNS"), r("NX JJR CD JJ JJS RB QP NP")},
		"NX":     {rd("POS NN NNP NNPS NNS"), r("NX JJR CD JJ JJS RB QP NP")},
		"PP":     {l("IN TO VBG VBN RP FW")},
		"PRN":    {r("")},
		"PRT":    {l("RP")},
		"QP":     {r("$ IN NNS NN JJ RB DT CD NCD QP JJR JJS")},
		"RRC":    {l("VP NP ADVP ADJP PP")},
		"S":      {r("TO IN VP S SBAR ADJP UCP NP")},
		"SBAR":   {r("WHNP WHPP WHADVP WHADJP IN DT S SQ SINV SBAR FRAG")},
		"SBARQ":  {r("SQ S SINV SBARQ FRAG")},
		"SINV":   {r("VBZ VBD VBP VB MD VP S SINV ADJP NP")},
		"SQ":     {r("VBZ VBD VBP VB MD VP SQ")},
		"UCP":    {l("")},
		"VP":     {l("VBD VBN MD VBZ VB VBG VBP VP ADJP NN NNS NP")},
		"WHADJP": {r("CC WRB JJ ADJP")},
		"WHADVP": {l("CC WRB")},
		"WHNP":   {r("WDT WP WP$ WHADJP WHPP WHNP")},
		"WHPP":   {l("IN TO FW")},
		"X":      {r("")},
	},
}
