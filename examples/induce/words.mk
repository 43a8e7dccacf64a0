# From raw words to trees: for every language of ../shared/data/ud-nopunct
# and the PTB sample, the grammar `induce --words` learns from the words
# alone (no gold tags anywhere before scoring), against the DMV on gold tags
# and both attach baselines, on held-out sentences, with sign tests.
#
#   make -C examples/induce -f words.mk -j2
#   make -C examples/induce -f words.mk -j2 LANGS='en ptb'
#
# Splits as newlang.mk's (the held-out protocol): a UD language's dev file,
# odd-numbered sentences the unannotated dev set the choices see, even-
# numbered ones (≤ TEST_MAX words) the report; its train file (every
# sentence, ≤ 15 words here) to train, or for de, bg and nl, which have none
# here, the selection half. The PTB sample (Collins heads, punctuation
# removed, examples/corpora.mk's ptb split): wsj_0001–0139 train, 0140–0169
# dev, 0170–0199 report. Rows, scored root counted and root excluded:
#   attach-left, attach-right  the baselines
#   em-gold    the DMV on the gold tags (UPOS; Penn for ptb): EM from km and
#              zero, λ 0 and 1, the likeliest on dev — the DMV the classes
#              stand in for
#   words-em   the same EM on the classes of induce --words's tagger, without
#              the content-head rule: the plain words → classes → DMV pipeline
#   words      induce --words --preset PRESET: Brown classes with the most
#              frequent words as classes of their own, the DMV constrained by
#              content heads, chosen by dev likelihood
#   words-few  the same candidates picked by 20 annotated dev sentences
#              (select-model --dev-sentences 20): few-sentence selection, a
#              reference, not a result without annotation
#   words-dmvccm  DMV+CCM (train-ccm --model dmvccm, its defaults, no
#              selection) on the same classes
# words-summary.sh prints one line per language and the verdicts.
# Needs the programs in ../../bin and jq.

SHARED    ?= $(abspath ../../../shared/data)
UD        := $(SHARED)/ud-nopunct
PTB       := $(SHARED)/ptb-sample/wsj
TRAIN_MAX ?= 10
TEST_MAX  ?= 10
PRESET    ?= medium
WORKERS   ?= 1
LANGS     ?= $(foreach l,en zh tr pt ja de bg eu fr it pl es nl,$(if $(wildcard $(UD)/$(l)-ud-dev-nopunct.conllu),$(l))) $(if $(wildcard $(PTB)),ptb)
OUT       ?= out/words-$(TRAIN_MAX)
T         := t$(TEST_MAX)
export PATH := $(abspath ../../bin):$(PATH)

ROWS := attach-left attach-right em-gold words-em words words-few words-dmvccm
.SECONDEXPANSION:

.PHONY: all clean
ifeq ($(strip $(LANGS)),)
all:
	@echo "examples/induce: no language files in $(UD) or $(PTB); skipping"
else
all: $(foreach l,$(LANGS),$(foreach r,$(ROWS),$(OUT)/$(l)/$(r).$(T).score)) $(foreach l,$(LANGS),$(OUT)/$(l)/words.$(T).vs-em-gold)
	@sh words-summary.sh $(OUT) $(T) $(LANGS)
endif

# Every sentence of each part, with its gold tags and heads (read only by
# the em-gold row and by score).
dev_of = conll2deps --tag upos -q $(UD)/$(1)-ud-dev-nopunct.conllu
ptb_files = $(addprefix $(PTB)/,$(if $(filter train,$(1)),00/wsj_00*.mrg 01/wsj_01[0-3]*.mrg,$(if $(filter sel,$(1)),01/wsj_01[4-6]*.mrg,01/wsj_01[7-9]*.mrg)))
$(OUT)/ptb/train.jsonl $(OUT)/ptb/sel.jsonl $(OUT)/ptb/test.jsonl: $(OUT)/ptb/%.jsonl:
	@mkdir -p $(@D)
	ptb2deps $(call ptb_files,$*) > $@.tmp && mv $@.tmp $@
$(OUT)/%/sel.jsonl:
	@mkdir -p $(@D)
	$(call dev_of,$*) | awk 'NR % 2 == 1' > $@.tmp && mv $@.tmp $@
$(OUT)/%/test.jsonl:
	@mkdir -p $(@D)
	$(call dev_of,$*) | awk 'NR % 2 == 0' > $@.tmp && mv $@.tmp $@
$(OUT)/%/train.jsonl: $(OUT)/%/sel.jsonl
	@if [ -f $(UD)/$*-ud-train-nopunct-len15.conllu ]; then \
	  conll2deps --tag upos -q $(UD)/$*-ud-train-nopunct-len15.conllu > $@.tmp; \
	else cp $< $@.tmp; fi && mv $@.tmp $@
$(OUT)/%/test$(TEST_MAX).jsonl: $(OUT)/%/test.jsonl
	filterlen $(TEST_MAX) $< > $@.tmp && mv $@.tmp $@
$(OUT)/%/train$(TRAIN_MAX).jsonl: $(OUT)/%/train.jsonl
	filterlen $(TRAIN_MAX) $< > $@.tmp && mv $@.tmp $@
$(OUT)/%/sel$(TRAIN_MAX).jsonl: $(OUT)/%/sel.jsonl
	filterlen $(TRAIN_MAX) $< > $@.tmp && mv $@.tmp $@

# induce --words: the tagger and the grammar, from the words of train and dev.
$(OUT)/%/words/model.jsonl: $(OUT)/%/train.jsonl $(OUT)/%/sel.jsonl
	@rm -rf $(@D)
	induce --words --train $< --dev $(word 2,$^) --max-len $(TRAIN_MAX) --preset $(PRESET) --workers $(WORKERS) -q --save-dir $(@D)/runs -o $(@D)

# EM picked by dev likelihood, on gold tags (em-gold) or on the classes (words-em).
EM_RUNS := km-0 km-1 zero-0 zero-1
em_pick = @mkdir -p $(@D)/$(1) && for r in $(EM_RUNS); do set -- $$(echo $$r | tr - ' '); \
	  train-em --init $$1 --lambda $$2 --workers $(WORKERS) -q $(2) -o $(@D)/$(1)/$$r.jsonl || exit 1; done && \
	select-model --dev $(3) --by likelihood -q --best $@ $(EM_RUNS:%=$(@D)/$(1)/%.jsonl) > $(@D)/$(1).ranking
$(OUT)/%/em-gold.model: $(OUT)/%/train$(TRAIN_MAX).jsonl $(OUT)/%/sel$(TRAIN_MAX).jsonl
	$(call em_pick,em-gold,$<,$(word 2,$^))
$(OUT)/%/classed-train.jsonl: $(OUT)/%/words/model.jsonl $(OUT)/%/train$(TRAIN_MAX).jsonl
	tag-classes -q -m $(@D)/words/tagger.jsonl $(@D)/train$(TRAIN_MAX).jsonl > $@.tmp && mv $@.tmp $@
$(OUT)/%/classed-sel.jsonl: $(OUT)/%/words/model.jsonl $(OUT)/%/sel$(TRAIN_MAX).jsonl
	tag-classes -q -m $(@D)/words/tagger.jsonl $(@D)/sel$(TRAIN_MAX).jsonl > $@.tmp && mv $@.tmp $@
$(OUT)/%/words-em.model: $(OUT)/%/classed-train.jsonl $(OUT)/%/classed-sel.jsonl
	$(call em_pick,words-em,$<,$(word 2,$^))

$(OUT)/%/words-few.model: $(OUT)/%/classed-sel.jsonl
	select-model --dev $< --dev-sentences 20 --root count -q --best $@ $(@D)/words/runs/*.jsonl > $(@D)/words-few.ranking

# The report half: classed by the tagger for the word rows, gold tags for em-gold.
$(OUT)/%/classed-test.jsonl: $(OUT)/%/words/model.jsonl $(OUT)/%/test$(TEST_MAX).jsonl
	tag-classes -q -m $(@D)/words/tagger.jsonl $(@D)/test$(TEST_MAX).jsonl > $@.tmp && mv $@.tmp $@
$(OUT)/%/words.$(T).test.jsonl: $(OUT)/%/classed-test.jsonl
	decode -m $(@D)/words/model.jsonl -q $< > $@.tmp && mv $@.tmp $@
$(OUT)/%/words-em.$(T).test.jsonl: $(OUT)/%/words-em.model $(OUT)/%/classed-test.jsonl
	decode -m $< -q $(@D)/classed-test.jsonl > $@.tmp && mv $@.tmp $@
$(OUT)/%/words-few.$(T).test.jsonl: $(OUT)/%/words-few.model $(OUT)/%/classed-test.jsonl
	decode -m $< -q $(@D)/classed-test.jsonl > $@.tmp && mv $@.tmp $@
$(OUT)/%/words-dmvccm.$(T).test.jsonl: $(OUT)/%/classed-train.jsonl $(OUT)/%/classed-test.jsonl
	train-ccm --model dmvccm -q $< --test $(@D)/classed-test.jsonl -o $@.tmp && mv $@.tmp $@
$(OUT)/%/em-gold.$(T).test.jsonl: $(OUT)/%/em-gold.model $(OUT)/%/test$(TEST_MAX).jsonl
	decode -m $< -q $(@D)/test$(TEST_MAX).jsonl > $@.tmp && mv $@.tmp $@
$(OUT)/%/attach-left.$(T).test.jsonl: $(OUT)/%/test$(TEST_MAX).jsonl
	baseline --attach left $< > $@.tmp && mv $@.tmp $@
$(OUT)/%/attach-right.$(T).test.jsonl: $(OUT)/%/test$(TEST_MAX).jsonl
	baseline --attach right $< > $@.tmp && mv $@.tmp $@

# Each row's score, root counted, with the sign test against attach-right
# (tags differ between the rows, so the test is on heads: --against's tags
# must agree, hence the gold-tagged copy of each prediction).
$(OUT)/%.$(T).gold-tags.jsonl: $(OUT)/%.$(T).test.jsonl $$(dir $$@)test$(TEST_MAX).jsonl
	jq -c --slurpfile g $(dir $@)test$(TEST_MAX).jsonl -n '[inputs] as $$p | range(0; $$p | length) as $$i | $$g[$$i] + {pred: $$p[$$i].pred}' $< > $@.tmp && mv $@.tmp $@
$(OUT)/%.$(T).score: $(OUT)/%.$(T).gold-tags.jsonl $$(dir $$@)attach-right.$(T).gold-tags.jsonl
	score --root count --json --against $(dir $@)attach-right.$(T).gold-tags.jsonl $< -o $@
$(OUT)/%.$(T).vs-em-gold: $(OUT)/%.$(T).gold-tags.jsonl $$(dir $$@)em-gold.$(T).gold-tags.jsonl
	score --root count --json --against $(dir $@)em-gold.$(T).gold-tags.jsonl $< -o $@
$(foreach l,$(LANGS),$(OUT)/$(l)/attach-right.$(T).score): $(OUT)/%.$(T).score: $(OUT)/%.$(T).gold-tags.jsonl $$(dir $$@)attach-right.$(T).gold-tags.jsonl
	score --root count --json $< -o $@

.SECONDARY:
clean:
	rm -rf $(OUT)
