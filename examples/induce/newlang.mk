# A new language, honestly: for every language of ../shared/data/ud-nopunct
# (UD v1.4, UPOS tags), the model `induce` chooses without annotation,
# against EM chosen without annotation and both attach baselines, on
# held-out sentences, with sign tests.
#
#   make -C examples/induce -f newlang.mk -j2
#   make -C examples/induce -f newlang.mk -j2 LANGS='en ja'
#   make -C examples/induce -f newlang.mk -j2 TEST_MAX=40        # the same models on report sentences ≤ 40
#   make -C examples/induce -f newlang.mk -j2 TRAIN_MAX=15 TEST_MAX=40 LANGS='eu nl fr de it pl pt es'
#   make -C examples/induce -f newlang.mk -j2 TRAIN_MAX=15 DEV_MAX=40 TEST_MAX=40 LANGS='eu nl fr de it pl pt es'
#   make -C examples/induce -f newlang.mk -j2 PRESET=medium      # another grid: out/newlang-10-medium
#
# Each language's dev file is split as the held-out protocol splits it
# (examples/corpora.mk): the odd-numbered sentences (≤ DEV_MAX words,
# by default TRAIN_MAX) are the unannotated dev set induce and EM's
# selection see, the even-numbered ones (≤ TEST_MAX words) the report; it
# trains on the train file (≤ TRAIN_MAX), or where there is none (de, bg,
# nl) on the selection half's sentences of ≤ TRAIN_MAX words.
# Rows, scored root counted and root excluded:
#   attach-left, attach-right  the baselines
#   em          EM from km and zero, λ 0 and 1, picked by dev likelihood
#   induce      induce, --preset PRESET if given (its choice: by the share
#               of universal rules in the dev parses, then dev likelihood)
#   induce-mbr  induce's model parsed by decode --mbr (the tree with the
#               most expected correct attachments), which parsed induce's
#               picks better than Viterbi on the selection halves (mbr.sh:
#               a decoder chosen with their gold heads)
#   induce-sup  the same candidates picked by dev accuracy (gold heads of
#               the selection half): how far the unsupervised pick lands
#               from a supervised one — not a result without annotation
# summary.sh prints one line per language and the verdicts.
# Needs the programs in ../../bin and jq.

SHARED    ?= $(abspath ../../../shared/data)
UD        := $(SHARED)/ud-nopunct
TRAIN_MAX ?= 10
TEST_MAX  ?= 10
DEV_MAX   ?= $(TRAIN_MAX)
PRESET    ?=
WORKERS   ?= 1
LANGS     ?= $(foreach l,en zh tr pt ja de bg eu fr it pl es nl,$(if $(wildcard $(UD)/$(l)-ud-dev-nopunct.conllu),$(l)))
OUT       ?= out/newlang-$(TRAIN_MAX)$(if $(filter-out $(TRAIN_MAX),$(DEV_MAX)),-dev$(DEV_MAX))$(if $(PRESET),-$(PRESET))
# The report half at TEST_MAX: test$(TEST_MAX).jsonl, and each row's
# ROW.t$(TEST_MAX).test.jsonl and .score (the models do not depend on it).
T         := t$(TEST_MAX)
export PATH := $(abspath ../../bin):$(PATH)

ROWS := attach-left attach-right em induce induce-mbr induce-sup
.SECONDEXPANSION:

.PHONY: all clean
ifeq ($(strip $(LANGS)),)
all:
	@echo "examples/induce: no language files in $(UD); skipping"
else
all: $(foreach l,$(LANGS),$(foreach r,$(ROWS),$(OUT)/$(l)/$(r).$(T).score)) $(foreach l,$(LANGS),$(OUT)/$(l)/induce.$(T).vs-em $(OUT)/$(l)/induce-mbr.$(T).vs-em)
	@sh summary.sh $(OUT) $(T) $(LANGS)
endif

dev_of = conll2deps --tag upos -q $(UD)/$(1)-ud-dev-nopunct.conllu
$(OUT)/%/dev.jsonl:
	@mkdir -p $(@D)
	$(call dev_of,$*) | awk 'NR % 2 == 1' | filterlen $(DEV_MAX) > $@.tmp && mv $@.tmp $@
$(OUT)/%/test$(TEST_MAX).jsonl:
	@mkdir -p $(@D)
	$(call dev_of,$*) | awk 'NR % 2 == 0' | filterlen $(TEST_MAX) > $@.tmp && mv $@.tmp $@
$(OUT)/%/train.jsonl: $(OUT)/%/dev.jsonl
	@if [ -f $(UD)/$*-ud-train-nopunct-len15.conllu ]; then \
	  conll2deps --tag upos -q $(UD)/$*-ud-train-nopunct-len15.conllu | filterlen $(TRAIN_MAX) > $@.tmp; \
	else filterlen $(TRAIN_MAX) $< > $@.tmp; fi && mv $@.tmp $@

# EM without annotation: four runs, the likeliest on dev.
EM_RUNS := km-0 km-1 zero-0 zero-1
$(OUT)/%/em.model: $(OUT)/%/train.jsonl $(OUT)/%/dev.jsonl
	@mkdir -p $(@D)/em
	@for r in $(EM_RUNS); do set -- $$(echo $$r | tr - ' '); \
	  train-em --init $$1 --lambda $$2 --workers $(WORKERS) -q $< -o $(@D)/em/$$r.jsonl || exit 1; done
	select-model --dev $(@D)/dev.jsonl --by likelihood -q --best $@ $(EM_RUNS:%=$(@D)/em/%.jsonl) > $(@D)/em.ranking

# induce, keeping every candidate for the supervised reference.
$(OUT)/%/induce.model: $(OUT)/%/train.jsonl $(OUT)/%/dev.jsonl
	@rm -rf $(@D)/runs
	induce --train $< --dev $(@D)/dev.jsonl $(if $(PRESET),--preset $(PRESET)) --workers $(WORKERS) -q \
	  --save-dir $(@D)/runs --report $(@D)/induce.report -o $@
$(OUT)/%/induce-sup.model: $(OUT)/%/induce.model
	select-model --dev $(@D)/dev.jsonl --root count -q --best $@ $(@D)/runs/*.jsonl > $(@D)/induce-sup.ranking

$(OUT)/%.$(T).test.jsonl: $(OUT)/%.model $$(dir $$@)test$(TEST_MAX).jsonl
	decode -m $< -q $(dir $@)test$(TEST_MAX).jsonl > $@.tmp && mv $@.tmp $@
$(OUT)/%/induce-mbr.$(T).test.jsonl: $(OUT)/%/induce.model $(OUT)/%/test$(TEST_MAX).jsonl
	decode --mbr -m $< -q $(dir $@)test$(TEST_MAX).jsonl > $@.tmp && mv $@.tmp $@
$(OUT)/%/attach-left.$(T).test.jsonl: $(OUT)/%/test$(TEST_MAX).jsonl
	baseline --attach left $< > $@.tmp && mv $@.tmp $@
$(OUT)/%/attach-right.$(T).test.jsonl: $(OUT)/%/test$(TEST_MAX).jsonl
	baseline --attach right $< > $@.tmp && mv $@.tmp $@

# Each row's score: root counted, with the sign test against attach-right;
# .vs-em: against EM.
$(OUT)/%.$(T).score: $(OUT)/%.$(T).test.jsonl $$(dir $$@)attach-right.$(T).test.jsonl
	score --root count --json --against $(dir $@)attach-right.$(T).test.jsonl $< -o $@
$(OUT)/%.$(T).vs-em: $(OUT)/%.$(T).test.jsonl $$(dir $$@)em.$(T).test.jsonl
	score --root count --json --against $(dir $@)em.$(T).test.jsonl $< -o $@
$(foreach l,$(LANGS),$(OUT)/$(l)/attach-right.$(T).score): $(OUT)/%.$(T).score: $(OUT)/%.$(T).test.jsonl $$(dir $$@)attach-right.$(T).test.jsonl
	score --root count --json $< -o $@

.SECONDARY:
clean:
	rm -rf $(OUT)
