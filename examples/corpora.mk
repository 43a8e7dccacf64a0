# The corpora of the example Makefiles, by DATA (included by em, ce and
# anneal): each defines TRAIN_CMD, DEV_CMD and TEST_CMD, the sentence
# records of length ≤ MAXLEN of its train, dev and test parts, and NEEDS,
# the file it reads, so a recipe can skip when ../shared/data is absent.
# Train, dev (selection) and test (report) are different sentences (the
# held-out protocol, DESIGN.md §6; counts in README.md, "Held-out protocol"):
#
#   treebank  the treebank grind ships (examples/treebank): grind_0001–0005
#             train, grind_0006 dev, grind_0007 test (a toy; grind_0008 has
#             no sentence of length ≤ 10)
#   ptb       the PTB sample, Collins heads (ptb2deps), split by file:
#             wsj_0001–0139 train, wsj_0140–0169 dev, wsj_0170–0199 test
#   ptb-ym    the same files, Yamada & Matsumoto heads (the .dp files)
#   ptb-cv    the PTB sample (Collins heads) in the 10 folds of PTB_FOLDS, by
#             file; FOLD=k tests on fold k, selects on fold k−1 (fold 1 on
#             fold 10) and trains on the other eight; fold 10 is ptb's split
#             (test 0170–0199, dev 0140–0169, train 0001–0139). FOLD=all is
#             the concatenation of the ten test folds: every sentence once
#             (heldout.mk's cross-validated report)
#   ud-en     UD English v1.4 without punctuation, XPOS tags: the train file
#             to train; the dev file split by sentence, odd-numbered sentences
#             to select (dev), even-numbered ones to report (test)
#   ud-upos-L language L of ../shared/data/ud-nopunct (en, zh, tr, pt, ja, de,
#             bg), UPOS tags: the same halves of its dev file; it trains on
#             its train file, or (de, bg, which have none here) on the
#             selection half (transductive for selection, held out for test)

# The including Makefile's "all" stays the default goal.
.DEFAULT_GOAL := all

EXAMPLES := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
SHARED   ?= $(abspath $(EXAMPLES)/../../shared/data)
BIN      ?= $(abspath $(EXAMPLES)/../bin)
MAXLEN   ?= 10
export PATH := $(BIN):$(PATH)

PTB_TRAIN := 00/wsj_00*.mrg 01/wsj_01[0-3]*.mrg
PTB_DEV   := 01/wsj_01[4-6]*.mrg
PTB_TEST  := 01/wsj_01[7-9]*.mrg
ifeq ($(DATA),treebank)
NEEDS     := $(EXAMPLES)/treebank
TRAIN_CMD := ptb2deps $(addprefix $(NEEDS)/,grind_000[1-5].mrg) | filterlen $(MAXLEN)
DEV_CMD   := ptb2deps $(NEEDS)/grind_0006.mrg | filterlen $(MAXLEN)
TEST_CMD  := ptb2deps $(NEEDS)/grind_0007.mrg | filterlen $(MAXLEN)
else ifeq ($(DATA),ptb)
NEEDS     := $(SHARED)/ptb-sample/wsj
TRAIN_CMD := ptb2deps $(addprefix $(NEEDS)/,$(PTB_TRAIN)) | filterlen $(MAXLEN)
DEV_CMD   := ptb2deps $(addprefix $(NEEDS)/,$(PTB_DEV)) | filterlen $(MAXLEN)
TEST_CMD  := ptb2deps $(addprefix $(NEEDS)/,$(PTB_TEST)) | filterlen $(MAXLEN)
else ifeq ($(DATA),ptb-ym)
NEEDS     := $(SHARED)/ptb-sample-deps-ym
YM         = $(addprefix $(NEEDS)/,$(notdir $(1:.mrg=.dp)))
TRAIN_CMD := conll2deps --quiet $(call YM,$(PTB_TRAIN)) | filterlen $(MAXLEN)
DEV_CMD   := conll2deps --quiet $(call YM,$(PTB_DEV)) | filterlen $(MAXLEN)
TEST_CMD  := conll2deps --quiet $(call YM,$(PTB_TEST)) | filterlen $(MAXLEN)
else ifeq ($(DATA),ptb-cv)
NEEDS     := $(SHARED)/ptb-sample/wsj
# Fold k = files wsj_A–wsj_B, ranges balanced on sentences of length ≤ 10
# (57 64 49 60 60 53 60 50 51 51; the last two are ptb's dev and test).
PTB_FOLDS := 1-37 38-45 46-65 66-87 88-102 103-112 113-121 122-139 140-169 170-199
FOLD      ?= 10
ifneq ($(FOLD),all)
CV_K      := $(words $(PTB_FOLDS))
CV_DEV    := $(if $(filter 1,$(FOLD)),$(CV_K),$(shell expr $(FOLD) - 1))
ptb_fold   = $(shell r=$(word $(1),$(PTB_FOLDS)); for i in $$(seq $${r%-*} $${r#*-}); do \
               printf '%s/%02d/wsj_%04d.mrg ' $(NEEDS) $$((i / 100)) $$i; done)
CV_TRAIN  := $(filter-out $(FOLD) $(CV_DEV),$(shell seq 1 $(CV_K)))
TRAIN_CMD := ptb2deps $(foreach k,$(CV_TRAIN),$(call ptb_fold,$(k))) | filterlen $(MAXLEN)
DEV_CMD   := ptb2deps $(call ptb_fold,$(CV_DEV)) | filterlen $(MAXLEN)
TEST_CMD  := ptb2deps $(call ptb_fold,$(FOLD)) | filterlen $(MAXLEN)
OUT       ?= out/ptb-cv/fold-$(FOLD)
else
OUT       ?= out/ptb-cv
endif
else ifeq ($(DATA),ud-en)
NEEDS     := $(SHARED)/ud-nopunct/en-ud-train-nopunct-len15.conllu
UD_DEV    := conll2deps --tag xpos $(SHARED)/ud-nopunct/en-ud-dev-nopunct.conllu
TRAIN_CMD := conll2deps --tag xpos $(NEEDS) | filterlen $(MAXLEN)
DEV_CMD   := $(UD_DEV) | awk 'NR % 2 == 1' | filterlen $(MAXLEN)
TEST_CMD  := $(UD_DEV) | awk 'NR % 2 == 0' | filterlen $(MAXLEN)
else ifneq ($(filter ud-upos-%,$(DATA)),)
UD_FILES  := $(SHARED)/ud-nopunct/$(DATA:ud-upos-%=%)-ud
NEEDS     := $(UD_FILES)-dev-nopunct.conllu
UD_DEV    := conll2deps --tag upos -q $(NEEDS)
DEV_CMD   := $(UD_DEV) | awk 'NR % 2 == 1' | filterlen $(MAXLEN)
TEST_CMD  := $(UD_DEV) | awk 'NR % 2 == 0' | filterlen $(MAXLEN)
TRAIN_CMD := $(if $(wildcard $(UD_FILES)-train-nopunct-len15.conllu),conll2deps --tag upos -q $(UD_FILES)-train-nopunct-len15.conllu | filterlen $(MAXLEN),$(DEV_CMD))
else
$(error DATA must be treebank, ptb, ptb-ym, ptb-cv, ud-en or ud-upos-LANG)
endif
OUT      ?= out/$(DATA)

$(OUT)/train.jsonl:
	@mkdir -p $(@D)
	$(TRAIN_CMD) > $@.tmp && mv $@.tmp $@

$(OUT)/dev.jsonl: | $(OUT)/train.jsonl
	$(DEV_CMD) > $@.tmp && mv $@.tmp $@

$(OUT)/test.jsonl: | $(OUT)/train.jsonl
	$(TEST_CMD) > $@.tmp && mv $@.tmp $@
