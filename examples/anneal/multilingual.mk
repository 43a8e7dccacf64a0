# The multilingual recipe: for every language of ../shared/data/ud-nopunct,
# the held-out table of heldout.mk — attach-left and attach-right, and EM,
# SDA (to β = 1 and sda-below1), SA on δ and CE, each picked by supervised, few-sentence (FEW = 20),
# unsupervised and oracle selection on one half of the language's dev file
# and reported on the other half, with sign tests against EM — then one
# summary line per language.
#
#   make -C examples/anneal -f multilingual.mk -j2
#   make -C examples/anneal -f multilingual.mk -j2 LANGS='en tr'
#
# Sentences of length ≤ 10, UPOS tags (DATA=ud-upos-L of ../corpora.mk). de
# and bg have only a dev file here: they train on its selection half
# (marked * in the summary). A language whose files are absent is left
# out; without ../shared/data the recipe skips. The grids are small, so
# that the recipe runs in minutes; widen them with the variables of
# heldout.mk. Needs the programs in ../../bin and jq.

SHARED ?= $(abspath ../../../shared/data)
OUT    ?= out/multilingual
UD     := $(SHARED)/ud-nopunct
LANGS  ?= $(foreach l,en zh tr pt ja de bg,$(if $(wildcard $(UD)/$(l)-ud-dev-nopunct.conllu),$(l)))
GRID   ?= INITS="km zero" LAMBDAS="0 1 10" BETA0S="0.1 0.01" GAMMAS="2.5 1.5" \
	DELTA0S="-0.6 -0.4" DELTA_STEPS=0.1 SA_LAMBDAS="1 10" SIGMA2S="1 inf"

.PHONY: all clean
ifeq ($(strip $(LANGS)),)
all:
	@echo "examples/anneal: no language files in $(UD); skipping the multilingual recipe"
else
all: $(LANGS:%=$(OUT)/%/heldout/table.tsv)
	@sh multilingual-summary.sh $(OUT) $(LANGS)

$(OUT)/%/heldout/table.tsv:
	$(MAKE) -f heldout.mk DATA=ud-upos-$* OUT=$(OUT)/$* $(GRID) $(OUT)/$*/heldout/table.tsv
endif

clean:
	rm -rf $(OUT)
