# The corpora of the example Makefiles, by DATA (included by em, ce and
# anneal): each defines TRAIN_CMD (and DEV_CMD when the data has a dev
# set), the sentence records of length ≤ MAXLEN, and NEEDS, the file it
# reads, so a recipe can skip when ../shared/data is absent.
#
#   treebank  the treebank grind ships (examples/treebank)
#   ptb       the PTB sample, Collins heads (ptb2deps)
#   ptb-ym    the same sentences, Yamada & Matsumoto heads (the .dp files)
#   ud-en     UD English v1.4 without punctuation, XPOS tags, train and dev

# The including Makefile's "all" stays the default goal.
.DEFAULT_GOAL := all

EXAMPLES := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
SHARED   ?= $(abspath $(EXAMPLES)/../../shared/data)
BIN      ?= $(abspath $(EXAMPLES)/../bin)
MAXLEN   ?= 10
OUT      ?= out/$(DATA)
export PATH := $(BIN):$(PATH)

ifeq ($(DATA),treebank)
NEEDS     := $(EXAMPLES)/treebank
TRAIN_CMD := ptb2deps $(NEEDS)/*.mrg | filterlen $(MAXLEN)
else ifeq ($(DATA),ptb)
NEEDS     := $(SHARED)/ptb-sample/wsj
TRAIN_CMD := ptb2deps $(NEEDS)/*/*.mrg | filterlen $(MAXLEN)
else ifeq ($(DATA),ptb-ym)
NEEDS     := $(SHARED)/ptb-sample-deps-ym
TRAIN_CMD := conll2deps --quiet $(NEEDS)/*.dp | filterlen $(MAXLEN)
else ifeq ($(DATA),ud-en)
NEEDS     := $(SHARED)/ud-nopunct/en-ud-train-nopunct-len15.conllu
TRAIN_CMD := conll2deps --tag xpos $(NEEDS) | filterlen $(MAXLEN)
DEV_CMD   := conll2deps --tag xpos $(SHARED)/ud-nopunct/en-ud-dev-nopunct.conllu | filterlen $(MAXLEN)
else
$(error DATA must be treebank, ptb, ptb-ym or ud-en)
endif

$(OUT)/train.jsonl:
	@mkdir -p $(@D)
	$(TRAIN_CMD) > $@.tmp && mv $@.tmp $@

$(OUT)/dev.jsonl: | $(OUT)/train.jsonl
	$(DEV_CMD) > $@.tmp && mv $@.tmp $@
