# The held-out table (DESIGN.md §6): EM, SDA, SA on δ and CE, each trained on
# the train part, picked from Smith's grid on the dev part and reported on
# the test part, next to Smith's (2006) WSJ10 numbers, with the sign test of
# each pick against EM picked the same way. The em0 rows pick among EM's
# λ = 0 runs only: the unsmoothed EM Smith compares SDA (MLE) with.
#
#   make -C examples/anneal -f heldout.mk -j2 DATA=ptb      PTB sample, split by file
#   make -C examples/anneal -f heldout.mk -j2 DATA=ud-en    UD English, dev split in halves
#   make -C examples/anneal -f heldout.mk -j2 DATA=ptb-cv FOLD=all
#        the cross-validated report: the table of each of the ten folds of the
#        PTB sample (../corpora.mk; FOLD=k alone runs fold k), then one table
#        over the ten test folds concatenated — every sentence ≤ 10 once,
#        each parsed by the model its own fold's dev part picked — with the
#        sign tests on the concatenation. Fold 10 is DATA=ptb's split.
#
# Selection, as Smith names it:
#   supervised    dev directed accuracy (root excluded) on all dev sentences
#   few           the same on the first FEW dev sentences only (Smith §8.6)
#   unsupervised  dev log-likelihood (EM, SDA, SA) or, for CE, the dev
#                 contrastive objective under its neighbourhood
#   oracle        test accuracy itself (an upper bound, not a result)
# Every SA run saves each epoch (δ from δ₀ to δ_f = DELTA_FINAL by Δδ); each
# criterion picks among all epochs of all runs (a run keeps its own best
# epoch per criterion, which is exact: each ranks by one number per model).
# Needs the programs in ../../bin and jq; everything lands in out/$(DATA)/heldout.

DATA    ?= ptb
WORKERS ?= 1
FEW     ?= 20
include ../corpora.mk
H := $(OUT)/heldout
SELECT := $(BIN)/select-model

# Smith's grids (DESIGN.md §5.3–5.6); narrow them on the command line.
INITS       ?= km zero local
LAMBDAS     ?= 0 0.2154 0.4642 1 2.154 4.642 10
BETA0S      ?= 0.1 0.01 0.001
GAMMAS      ?= 2.5 2.25 2.0 1.75 1.5 1.25
DELTA0S     ?= -1 -0.8 -0.6 -0.4 -0.2
DELTA_STEPS ?= 0.05 0.1
DELTA_FINAL ?= 0.3
SA_LAMBDAS  ?= $(LAMBDAS)
NBHD        ?= del1ortrans1
# More neighbourhoods, each an estimator of its own (rows ce-NAME) on the same
# grid: Smith's chapter 8 ran five, DEL1ORTRANS1 and CE_NBHDS="del1 trans1
# length dynasearch"; chapter 4 (Table 4.2) eight.
CE_NBHDS    ?=
SIGMA2S     ?= 0.2154 0.4642 1 2.154 4.642 inf
CE_INITS    ?= $(INITS)
SELECTIONS  := supervised few unsupervised oracle
# em0 is EM without smoothing (the λ = 0 runs of the EM grid): SDA is MLE, and
# Smith's Tables 5.1 and 5.3 compare it with this EM. sda-below1 is the same
# grid run as Smith's tables were (train-da --below-one): each run ends at its
# last β₀γ^k < 1, without the β = 1 stage his Fig. 5.1 describes.
CE_ESTIMATORS := ce $(CE_NBHDS:%=ce-%)
# sda-map and sda-below1-map are not Smith's: the same schedules with add-λ
# smoothing in every M-step, λ over SDA_LAMBDAS and 0 (the sda runs), picked as
# EM is over its λ grid — the comparison with MAP/EM that Smith's Table 8.5
# calls "not fair" for his unsmoothed SDA. SDA_LAMBDAS= leaves them out.
SDA_LAMBDAS ?= $(filter-out 0,$(LAMBDAS))
SDA_MAP     := $(if $(SDA_LAMBDAS),sda-map sda-below1-map)
# Beyond the seeds (DESIGN.md §5.10–5.15), each an estimator of its own:
#   em-rules     EM for posterior regularization by universal rules (train-em
#                --rules RULES) over PR_INITS × PR_LAMBDAS × RULE_SHARES; its
#                unsupervised selection is by the share of rules in the dev
#                parses (select-model --by rules), the criterion induce uses
#   em-sparsity  EM for posterior sparsity (train-em --sparsity σ) over
#                PR_INITS × SIGMAS; unsupervised by dev likelihood; the dual
#                by DUAL_RULE (exact: every projection solved to pr-toolkit's
#                --dual-tol, which made docs/results.md's rows; or
#                interleaved: give it an OUT of its own, the models' names
#                do not say)
#   em-vb        variational Bayes (train-em --estimator vb) over INITS ×
#                VB_ALPHAS; unsupervised by its bound (select-model --by bound)
#   em-evg       Headden, Johnson & McClosky's (2009) extended valence
#                grammar (train-em --child-valence 2: a head's first child
#                and its later ones drawn from distributions of their own)
#                over INITS × EVG_LAMBDAS; unsupervised by dev likelihood
#   em-depth     EM within the left-corner depth bound (Noji, Miyao & Johnson
#                2016; train-em --max-depth DEPTH --max-chunk CHUNK, lcdmv's
#                best: 1 and 3) over INITS × DEPTH_LAMBDAS; the models are
#                plain DMVs, selected and parsed without the bound as lcdmv
#                parses its test sentences; unsupervised by dev likelihood
#                (another DEPTH or CHUNK needs an OUT of its own: the models'
#                names do not say)
#   induce       induce's own choice (--preset INDUCE_PRESET, medium: the
#                20 candidates docs/results.md's tables were made with,
#                before full became induce's default; an "unsupervised"
#                row only: it reads no gold)
#   modelu       Smith's Model U (train-ce --family modelu, §4.8) from weights
#                0 over U_NBHDS × U_SIGMA2S; modelu-spelling the same with
#                --spelling; modelu-all both (Smith's Table 4.9 last line).
#                Selected as Smith did, by undirected accuracy (select-model
#                ranks Model U so): supervised and few on dev, oracle on
#                test; no unsupervised row (Smith has none: Model U has no
#                likelihood). Model U predicts undirected trees: its rows'
#                directed column is the trees read from the first word.
# RULES= SIGMAS= VB_ALPHAS= EVG_LAMBDAS= DEPTH_LAMBDAS= U_NBHDS= leave them out.
RULES       ?= $(if $(filter ud-upos-%,$(DATA)),ud1,ptb)
RULE_SHARES ?= 0.7 0.8 0.9
PR_INITS    ?= km zero
PR_LAMBDAS  ?= 0 1
SIGMAS      ?= 1 3 10 30
DUAL_RULE   ?= exact
INDUCE_PRESET ?= medium
VB_ALPHAS   ?= 1 0.1 0.01 0.001
EVG_LAMBDAS ?= $(LAMBDAS)
DEPTH       ?= 1
CHUNK       ?= 3
DEPTH_LAMBDAS ?= $(LAMBDAS)
U_NBHDS     ?= del1 trans1 del1ortrans1 dynasearch trans2 del1ortrans2
U_SIGMA2S   ?= $(SIGMA2S)
NEW_ESTIMATORS := $(if $(RULES),em-rules) $(if $(SIGMAS),em-sparsity) $(if $(VB_ALPHAS),em-vb) \
	$(if $(EVG_LAMBDAS),em-evg) $(if $(DEPTH_LAMBDAS),em-depth)
U_ESTIMATORS := $(if $(U_NBHDS),modelu modelu-spelling modelu-all)
ESTIMATORS  := em $(if $(filter 0,$(LAMBDAS)),em0) sda sda-below1 $(SDA_MAP) sa $(CE_ESTIMATORS) $(NEW_ESTIMATORS) $(U_ESTIMATORS)
# The selections of each estimator: Model U has no unsupervised one.
selections_of = $(if $(filter $(U_ESTIMATORS),$(1)),$(filter-out unsupervised,$(SELECTIONS)),$(SELECTIONS))
# nbhd_of CE-ESTIMATOR: its neighbourhood (ce is NBHD's, ce-NAME is NAME's).
nbhd_of = $(if $(filter ce,$(1)),$(NBHD),$(1:ce-%=%))

.PHONY: all clean FORCE
FORCE:
ifeq ($(wildcard $(NEEDS)),)
all:
	@echo "examples/anneal: $(NEEDS) not found; skipping the held-out table on $(DATA)"
else
all: $(H)/table.tsv $(if $(filter all,$(FOLD)),$(H)/folds.tsv)
	@for t in $^; do column -t -s '	' $$t; echo; done

ifeq ($(FOLD),all)
# ---- cross-validation: each fold runs this file; a row's test parses are the
# folds' ones concatenated, in fold order (the same sentences for every row).
CV_FOLDS := $(shell seq 1 $(words $(PTB_FOLDS)))
# Each fold's make is always asked (it decides what a widened grid or a new
# row needs); its stamp is kept.
.SECONDARY: $(CV_FOLDS:%=$(H)/fold-%.done)
$(H)/fold-%.done: FORCE
	@mkdir -p $(@D)
	$(MAKE) -f heldout.mk DATA=$(DATA) FOLD=$*
	@touch $@
$(H)/%.test.jsonl: $(CV_FOLDS:%=$(H)/fold-%.done)
	cat $(CV_FOLDS:%=$(OUT)/fold-%/heldout/$*.test.jsonl) > $@.tmp && mv $@.tmp $@
TABLE_ENV := CV_PICKED='$(CV_FOLDS:%=$(OUT)/fold-%/heldout)'
# Each row's test accuracy (directed, root excluded) fold by fold.
$(H)/folds.tsv: $(H)/table.tsv
	@{ printf 'row'; for k in $(CV_FOLDS); do printf '\tfold %s' $$k; done; echo; \
	  for r in $(ROWS); do printf '%s' $$r; for k in $(CV_FOLDS); do \
	    printf '\t%s' $$(jq '.excluded.directed.f1 * 1000 | round / 10' $(OUT)/fold-$$k/heldout/$$r.score); done; echo; done; } > $@.tmp && mv $@.tmp $@
else
# ---- the grids ------------------------------------------------------------------
EM_RUNS  := $(foreach i,$(INITS),$(foreach l,$(LAMBDAS),$(H)/em/$(i)-l$(l).model))
SDA_RUNS := $(foreach i,$(INITS),$(foreach b,$(BETA0S),$(foreach g,$(GAMMAS),$(H)/sda/$(i)-b$(b)-g$(g).model)))
SDA_MAP_RUNS := $(SDA_RUNS) $(foreach l,$(SDA_LAMBDAS),$(SDA_RUNS:.model=-l$(l).model))
below1 = $(subst /sda/,/sda-below1/,$(1))
SA_DIRS  := $(foreach i,$(INITS),$(foreach d,$(DELTA0S),$(foreach s,$(DELTA_STEPS),$(foreach l,$(SA_LAMBDAS),$(H)/sa/$(i)-d$(d)-s$(s)-l$(l)))))
ce_runs   = $(foreach i,$(CE_INITS),$(foreach s,$(SIGMA2S),$(H)/$(1)/$(i)-s$(s).model))

$(H)/em/%.model: $(OUT)/train.jsonl
	@mkdir -p $(@D)
	@set -- $$(echo $* | tr '-' ' '); train-em --init $$1 --lambda $${2#l} --workers $(WORKERS) -q $< -o $@
# One train-da run makes both an sda model and its sda-below1 twin: the run
# to β = 1 passes through the --below-one run's model, its last stage below
# 1 (byte for byte: commands' TestTrainDABelowOne), so that stage is kept
# instead of running the schedule twice. A twin gone missing is run again
# with --below-one.
da = set -- $$(echo $(*F) | tr '-' ' '); l=$${4:-l0}; \
	train-da --init $$1 --skew --beta0 $${2\#b} --gamma $${3\#g} --lambda $${l\#l} --workers $(WORKERS) -q
$(SDA_MAP_RUNS): $(H)/%.model: $(OUT)/train.jsonl
	@mkdir -p $(@D) $(dir $(call below1,$@))
	@s=$@.stages; rm -rf $$s; $(da) --save-dir $$s $< -o $@ && \
	  cp "$$s/$$(ls $$s | grep -v -- '-beta1[.]jsonl$$' | tail -n 1)" $(call below1,$@) && rm -r $$s
$(call below1,$(SDA_MAP_RUNS)): $(H)/sda-below1/%.model: $(H)/sda/%.model
	@test -f $@ || { $(da) --below-one $(OUT)/train.jsonl -o $@; }
RULES_RUNS    := $(foreach i,$(PR_INITS),$(foreach l,$(PR_LAMBDAS),$(foreach t,$(RULE_SHARES),$(H)/em-rules/$(i)-l$(l)-t$(t).model)))
SPARSITY_RUNS := $(foreach i,$(PR_INITS),$(foreach g,$(SIGMAS),$(H)/em-sparsity/$(i)-s$(g).model))
VB_RUNS       := $(foreach i,$(INITS),$(foreach a,$(VB_ALPHAS),$(H)/em-vb/$(i)-a$(a).model))
EVG_RUNS      := $(foreach i,$(INITS),$(foreach l,$(EVG_LAMBDAS),$(H)/em-evg/$(i)-l$(l).model))
DEPTH_RUNS    := $(foreach i,$(INITS),$(foreach l,$(DEPTH_LAMBDAS),$(H)/em-depth/$(i)-l$(l).model))
$(RULES_RUNS): $(H)/em-rules/%.model: $(OUT)/train.jsonl
	@mkdir -p $(@D)
	@set -- $$(echo $* | tr '-' ' '); train-em --rules $(RULES) --init $$1 --lambda $${2#l} --rule-share $${3#t} --workers $(WORKERS) -q $< -o $@
$(SPARSITY_RUNS): $(H)/em-sparsity/%.model: $(OUT)/train.jsonl
	@mkdir -p $(@D)
	@set -- $$(echo $* | tr '-' ' '); train-em --sparsity $${2#s} --dual-rule $(DUAL_RULE) --init $$1 --workers $(WORKERS) -q $< -o $@
$(VB_RUNS): $(H)/em-vb/%.model: $(OUT)/train.jsonl
	@mkdir -p $(@D)
	@set -- $$(echo $* | tr '-' ' '); train-em --estimator vb --alpha $${2#a} --init $$1 --workers $(WORKERS) -q $< -o $@
$(EVG_RUNS): $(H)/em-evg/%.model: $(OUT)/train.jsonl
	@mkdir -p $(@D)
	@set -- $$(echo $* | tr '-' ' '); train-em --child-valence 2 --init $$1 --lambda $${2#l} --workers $(WORKERS) -q $< -o $@
$(DEPTH_RUNS): $(H)/em-depth/%.model: $(OUT)/train.jsonl
	@mkdir -p $(@D)
	@set -- $$(echo $* | tr '-' ' '); train-em --max-depth $(DEPTH) --max-chunk $(CHUNK) --init $$1 --lambda $${2#l} --workers $(WORKERS) -q $< -o $@
# induce's choice, and its name where the table looks for a pick.
$(H)/induce.unsupervised.model: $(OUT)/train.jsonl $(OUT)/dev.jsonl
	@mkdir -p $(@D)
	induce --train $< --dev $(OUT)/dev.jsonl --rules $(RULES) --preset $(INDUCE_PRESET) --workers $(WORKERS) -q --report $(H)/induce.report -o $@
	@sed -n 's/^chosen: \(.*\) — .*/\1/p' $(H)/induce.report | jq -R -c '{model: .}' > $(H)/induce.unsupervised.jsonl
# Model U: modelu/FEATURES-NBHD-sSIGMA2.model, FEATURES plain or spelling.
# One train-ce run a FEATURES-NBHD trains every σ² of U_SIGMA2S (--sigma2
# with a list: the neighbourhoods built once, each model the one a run of
# its σ² alone writes): a pattern rule with several targets, which make
# runs once for them all.
u_runs = $(foreach n,$(U_NBHDS),$(foreach s,$(U_SIGMA2S),$(H)/modelu/$(1)-$(n)-s$(s).model))
empty :=
comma := ,
u_sigma2s := $(subst $(empty) $(empty),$(comma),$(strip $(U_SIGMA2S)))
ifneq ($(u_sigma2s),)
$(foreach s,$(U_SIGMA2S),$(H)/modelu/%-s$(s).model): $(OUT)/train.jsonl
	@mkdir -p $(@D)
	@set -- $$(echo $* | tr '-' ' '); sp=; [ $$1 = spelling ] && sp=--spelling; \
	train-ce --family modelu $$sp --nbhd $$2 --sigma2 $(u_sigma2s) --workers $(WORKERS) -q $< -o '$(H)/modelu/$*-s{sigma2}.model'
endif
$(foreach e,$(CE_ESTIMATORS),$(call ce_runs,$(e))): $(H)/%.model: $(OUT)/train.jsonl
	@mkdir -p $(@D)
	@set -- $$(echo $(*F) | tr '-' ' '); train-ce --nbhd $(call nbhd_of,$(*D)) --init $$1 --sigma2 $${2#s} --workers $(WORKERS) -q $< -o $@

# select-model's options for each selection; by ESTIMATOR,SELECTION are those
# for one estimator: CE's unsupervised selection ranks by the contrastive
# objective under the estimator's own neighbourhood.
by_supervised   = --dev $(OUT)/dev.jsonl --root exclude
by_few          = --dev $(OUT)/dev.jsonl --root exclude --dev-sentences $(FEW)
by_unsupervised = --dev $(OUT)/dev.jsonl --root exclude --by likelihood
by_oracle       = --dev $(OUT)/test.jsonl --root exclude
by_unsupervised_em-rules = --dev $(OUT)/dev.jsonl --root exclude --by rules --rules $(RULES)
by_unsupervised_em-vb    = --dev $(OUT)/dev.jsonl --root exclude --by bound
by = $(if $(and $(filter unsupervised,$(2)),$(filter $(CE_ESTIMATORS),$(1))),--dev $(OUT)/dev.jsonl --root exclude --by contrast --nbhd $(call nbhd_of,$(1)),$(or $(by_$(2)_$(1)),$(by_$(2))))

# An SA run trains, then keeps its best epoch under each criterion.
$(H)/sa/%/done: $(OUT)/train.jsonl $(OUT)/dev.jsonl $(OUT)/test.jsonl
	@rm -rf $(@D) && mkdir -p $(@D)
	@set -- $$(echo $* | sed 's/-d/ /; s/-s/ /; s/-l/ /'); \
	train-sa --init $$1 --delta0 $$2 --delta-step $$3 --delta-final $(DELTA_FINAL) --lambda $$4 --workers $(WORKERS) \
	  --save-dir $(@D)/epochs -q $< -o /dev/null
	@$(foreach c,$(SELECTIONS),$(SELECT) $(by_$(c)) --json -q --best $(@D)/$(c).model $(@D)/epochs/*.jsonl > $(@D)/$(c).jsonl &&) rm -r $(@D)/epochs
	@touch $@

candidates_em  = $(EM_RUNS)
candidates_em0 = $(filter %-l0.model,$(EM_RUNS))
candidates_sda = $(SDA_RUNS)
candidates_sda-map = $(SDA_MAP_RUNS)
candidates_sda-below1 = $(call below1,$(SDA_RUNS))
candidates_sda-below1-map = $(call below1,$(SDA_MAP_RUNS))
$(foreach e,$(CE_ESTIMATORS),$(eval candidates_$(e) = $(call ce_runs,$(e))))
candidates_em-rules    = $(RULES_RUNS)
candidates_em-sparsity = $(SPARSITY_RUNS)
candidates_em-vb       = $(VB_RUNS)
candidates_em-evg      = $(EVG_RUNS)
candidates_em-depth    = $(DEPTH_RUNS)
candidates_modelu          = $(call u_runs,plain)
candidates_modelu-spelling = $(call u_runs,spelling)
candidates_modelu-all      = $(call u_runs,plain) $(call u_runs,spelling)
candidates_sa  = $(SA_DIRS:=/$(1).model)
deps_sa        = $(SA_DIRS:=/done)

# ---- selection: H/EST.SEL.jsonl ranks, H/EST.SEL.model is the pick ---------------
define select
$(H)/$(1).$(2).jsonl: $(if $(filter sa,$(1)),$(deps_sa),$(candidates_$(1))) $(OUT)/dev.jsonl $(OUT)/test.jsonl
	@$(SELECT) $(call by,$(1),$(2)) \
	  --json -q --best $(H)/$(1).$(2).model $(if $(filter sa,$(1)),$(call candidates_sa,$(2)),$(candidates_$(1))) > $$@.tmp && mv $$@.tmp $$@
$(H)/$(1).$(2).model: $(H)/$(1).$(2).jsonl
	@test -f $$@ && touch $$@
endef
$(foreach e,$(ESTIMATORS),$(foreach c,$(call selections_of,$(e)),$(eval $(call select,$(e),$(c)))))

# ---- the report: test parses, scores, sign tests against EM -----------------------
$(H)/%.test.jsonl: $(H)/%.model $(OUT)/test.jsonl
	decode -m $< -q $(OUT)/test.jsonl > $@.tmp && mv $@.tmp $@
$(H)/attach-%.test.jsonl: $(OUT)/test.jsonl
	@mkdir -p $(@D)
	baseline --attach $* $< > $@.tmp && mv $@.tmp $@
endif
# Each row's score carries the sign test against EM picked the same way
# (the baselines: against EM picked supervisedly). Model U's is on undirected
# attachments (score --undirected): it predicts undirected trees.
define report
$(H)/$(1).score: $(H)/$(1).test.jsonl $(H)/em.$(2).test.jsonl
	score --root exclude --json --against $(H)/em.$(2).test.jsonl $(if $(filter modelu%,$(1)),--undirected) $$< -o $$@
endef
$(foreach e,$(ESTIMATORS),$(foreach c,$(call selections_of,$(e)),$(eval $(call report,$(e).$(c),$(c)))))
$(foreach a,left right,$(eval $(call report,attach-$(a),supervised)))
$(if $(RULES),$(eval $(call report,induce.unsupervised,unsupervised)))

ROWS := attach-left attach-right $(foreach e,$(ESTIMATORS),$(foreach c,$(call selections_of,$(e)),$(e).$(c))) $(if $(RULES),induce.unsupervised)
$(H)/table.tsv: $(ROWS:%=$(H)/%.score)
	@$(TABLE_ENV) sh heldout-table.sh $(H) $(ROWS) > $@.tmp && mv $@.tmp $@

endif

clean:
	rm -rf $(H)
