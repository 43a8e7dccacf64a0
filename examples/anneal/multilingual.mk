# The multilingual recipe: for every language of ../shared/data/ud-nopunct,
# attach-left and attach-right baselines, and EM, SDA and SA each picked from
# a small grid by supervised selection (dev directed accuracy) and by
# unsupervised selection (dev log-likelihood), all printed as one table.
#
#   make -C examples/anneal -f multilingual.mk -j2
#   make -C examples/anneal -f multilingual.mk -j2 LANGS='en tr'
#
# Sentences of length ≤ 10, UPOS tags (one tag set for every language).
# en, zh, tr, pt and ja train on their train file and select on their dev
# file. de and bg have only a dev file here: they train on it and select on
# it too (transductive; marked * in the table). A language whose files are
# absent is left out; without ../shared/data the recipe skips. Needs the
# programs in ../../bin (make build at the top) and jq.

SHARED  ?= $(abspath ../../../shared/data)
BIN     ?= $(abspath ../../bin)
OUT     ?= out/multilingual
WORKERS ?= 1
export PATH := $(BIN):$(PATH)
SELECT  := $(BIN)/select-model

UD := $(SHARED)/ud-nopunct
TRAIN_LANGS   := $(foreach l,en zh tr pt ja,$(if $(wildcard $(UD)/$(l)-ud-train-nopunct-len15.conllu $(UD)/$(l)-ud-dev-nopunct.conllu),$(l)))
DEV_ONLY      := $(foreach l,de bg,$(if $(wildcard $(UD)/$(l)-ud-dev-nopunct.conllu),$(l)))
LANGS         ?= $(TRAIN_LANGS) $(DEV_ONLY)

# The grids (small, so the recipe runs in minutes; widen them at will).
EM_INITS    ?= zero km
EM_LAMBDAS  ?= 0 1 10
SDA_INITS   ?= zero km
SDA_BETA0S  ?= 0.1 0.01
SDA_GAMMAS  ?= 1.5 2.5
SA_INITS    ?= zero km
SA_DELTA0S  ?= -0.6 -0.4
SA_LAMBDAS  ?= 1 10
SA_STEP     ?= 0.1
SA_FINAL    ?= 0.1

.PHONY: all clean
ifeq ($(strip $(LANGS)),)
all:
	@echo "examples/anneal: no language files in $(UD); skipping the multilingual recipe"
else
all: $(OUT)/results.tsv
	@sh table.sh $< "$(filter $(DEV_ONLY),$(LANGS))"

# ---- data -------------------------------------------------------------------
define data
$(OUT)/$(1)/train.jsonl:
	@mkdir -p $$(@D)
	conll2deps --tag upos -q $(if $(filter $(1),$(DEV_ONLY)),$(UD)/$(1)-ud-dev-nopunct.conllu,$(UD)/$(1)-ud-train-nopunct-len15.conllu) | filterlen 10 > $$@.tmp && mv $$@.tmp $$@
$(OUT)/$(1)/dev.jsonl:
	@mkdir -p $$(@D)
	conll2deps --tag upos -q $(UD)/$(1)-ud-dev-nopunct.conllu | filterlen 10 > $$@.tmp && mv $$@.tmp $$@
endef
$(foreach l,$(LANGS),$(eval $(call data,$(l))))

# ---- baselines on dev ---------------------------------------------------------
$(OUT)/%/attach-left.score: $(OUT)/%/dev.jsonl
	baseline --attach left $< | score --json -o $@
$(OUT)/%/attach-right.score: $(OUT)/%/dev.jsonl
	baseline --attach right $< | score --json -o $@

# ---- EM, SDA: one model per grid point ---------------------------------------
define em_run
$(OUT)/$(1)/em/$(2)-l$(3).model.gz: $(OUT)/$(1)/train.jsonl
	@mkdir -p $$(@D)
	train-em --init $(2) --lambda $(3) --workers $(WORKERS) -q $$< -o $$@
endef
define sda_run
$(OUT)/$(1)/sda/$(2)-b$(3)-g$(4).model.gz: $(OUT)/$(1)/train.jsonl
	@mkdir -p $$(@D)
	train-da --init $(2) --skew --beta0 $(3) --gamma $(4) --workers $(WORKERS) -q $$< -o $$@
endef
# SA: every epoch is a candidate; a run ranks its own epochs and keeps the
# winner of each criterion.
define sa_run
$(OUT)/$(1)/sa/$(2)-d$(3)-l$(4)/done: $(OUT)/$(1)/train.jsonl $(OUT)/$(1)/dev.jsonl
	@rm -rf $$(@D) && mkdir -p $$(@D)
	train-sa --init $(2) --lambda $(4) --delta0 $(3) --delta-step $(SA_STEP) --delta-final $(SA_FINAL) --workers $(WORKERS) \
	  --save-dir $$(@D)/epochs -q $$< -o $$(@D)/final.model.gz
	@$(SELECT) --dev $(OUT)/$(1)/dev.jsonl --root exclude --json -q --best $$(@D)/accuracy.model.gz $$(@D)/epochs/*.jsonl > $$(@D)/accuracy.jsonl
	@$(SELECT) --dev $(OUT)/$(1)/dev.jsonl --by likelihood --root exclude --json -q --best $$(@D)/likelihood.model.gz $$(@D)/epochs/*.jsonl > $$(@D)/likelihood.jsonl
	@rm -r $$(@D)/epochs
	@touch $$@
endef
em_models  = $(foreach i,$(EM_INITS),$(foreach x,$(EM_LAMBDAS),$(OUT)/$(1)/em/$(i)-l$(x).model.gz))
sda_models = $(foreach i,$(SDA_INITS),$(foreach b,$(SDA_BETA0S),$(foreach g,$(SDA_GAMMAS),$(OUT)/$(1)/sda/$(i)-b$(b)-g$(g).model.gz)))
sa_runs    = $(foreach i,$(SA_INITS),$(foreach d,$(SA_DELTA0S),$(foreach x,$(SA_LAMBDAS),$(OUT)/$(1)/sa/$(i)-d$(d)-l$(x))))

# Selection: supervised and unsupervised rankings per language and method.
define language
$(foreach i,$(EM_INITS),$(foreach x,$(EM_LAMBDAS),$(eval $(call em_run,$(1),$(i),$(x)))))
$(foreach i,$(SDA_INITS),$(foreach b,$(SDA_BETA0S),$(foreach g,$(SDA_GAMMAS),$(eval $(call sda_run,$(1),$(i),$(b),$(g))))))
$(foreach i,$(SA_INITS),$(foreach d,$(SA_DELTA0S),$(foreach x,$(SA_LAMBDAS),$(eval $(call sa_run,$(1),$(i),$(d),$(x))))))
$(OUT)/$(1)/em.accuracy.jsonl: $(call em_models,$(1)) $(OUT)/$(1)/dev.jsonl
	@$(SELECT) --dev $(OUT)/$(1)/dev.jsonl --root exclude --json -q $(call em_models,$(1)) > $$@.tmp && mv $$@.tmp $$@
$(OUT)/$(1)/em.likelihood.jsonl: $(call em_models,$(1)) $(OUT)/$(1)/dev.jsonl
	@$(SELECT) --dev $(OUT)/$(1)/dev.jsonl --by likelihood --root exclude --json -q $(call em_models,$(1)) > $$@.tmp && mv $$@.tmp $$@
$(OUT)/$(1)/sda.accuracy.jsonl: $(call sda_models,$(1)) $(OUT)/$(1)/dev.jsonl
	@$(SELECT) --dev $(OUT)/$(1)/dev.jsonl --root exclude --json -q $(call sda_models,$(1)) > $$@.tmp && mv $$@.tmp $$@
$(OUT)/$(1)/sda.likelihood.jsonl: $(call sda_models,$(1)) $(OUT)/$(1)/dev.jsonl
	@$(SELECT) --dev $(OUT)/$(1)/dev.jsonl --by likelihood --root exclude --json -q $(call sda_models,$(1)) > $$@.tmp && mv $$@.tmp $$@
$(OUT)/$(1)/sa.accuracy.jsonl: $(addsuffix /done,$(call sa_runs,$(1)))
	@$(SELECT) --dev $(OUT)/$(1)/dev.jsonl --root exclude --json -q $(addsuffix /accuracy.model.gz,$(call sa_runs,$(1))) > $$@.tmp && mv $$@.tmp $$@
$(OUT)/$(1)/sa.likelihood.jsonl: $(addsuffix /done,$(call sa_runs,$(1)))
	@$(SELECT) --dev $(OUT)/$(1)/dev.jsonl --by likelihood --root exclude --json -q $(addsuffix /likelihood.model.gz,$(call sa_runs,$(1))) > $$@.tmp && mv $$@.tmp $$@
endef
$(foreach l,$(LANGS),$(eval $(call language,$(l))))

RESULTS := $(foreach l,$(LANGS),$(OUT)/$(l)/attach-left.score $(OUT)/$(l)/attach-right.score \
	$(foreach m,em sda sa,$(OUT)/$(l)/$(m).accuracy.jsonl $(OUT)/$(l)/$(m).likelihood.jsonl))

# One line per language, method and selection: dev accuracy in percent.
$(OUT)/results.tsv: $(RESULTS)
	@printf 'language\tmethod\tselection\tdev sentences\tdir(no root)\tundir(no root)\tdir(root)\tundir(root)\tmodel\n' > $@.tmp
	@for l in $(LANGS); do \
	  for b in attach-left attach-right; do \
	    jq -r --arg l $$l --arg b $$b '[$$l, $$b, "-", .sentences, (.excluded.directed.f1, .excluded.undirected.f1, .counted.directed.accuracy, .counted.undirected.accuracy | . * 1000 | round / 10), "-"] | @tsv' $(OUT)/$$l/$$b.score; \
	  done; \
	  for m in em sda sa; do for s in accuracy likelihood; do \
	    head -1 $(OUT)/$$l/$$m.$$s.jsonl | jq -r --arg l $$l --arg m $$m --arg s $$s \
	      '[$$l, $$m, $$s, .sentences, (.excluded_directed, .excluded_undirected, .counted_directed, .counted_undirected | . * 1000 | round / 10), .model] | @tsv'; \
	  done; done; \
	done >> $@.tmp
	@mv $@.tmp $@
endif

clean:
	rm -rf $(OUT)
