# Word classes scored as tags (issue 22): Brown clustering and Klein's
# distributional classes (train-classes) into K classes, K the number of
# gold tags, on the PTB sample with punctuation (45 tags) and on each UD dev
# file of ../shared/data/ud-nopunct (UPOS), scored as Johnson (2007) —
# many-to-1, greedy 1-to-1, VI — beside the HMM estimators of the table
# above (make -C examples/tags table).
#
#   make -C examples/tags -f classes.mk -j2
#
# Trained and scored on the same words (transductive, as the HMM rows); no
# model selection (Klein's k-means from --seed 1, Brown's deterministic).
# The last line is the mean over the UD languages.

SHARED ?= $(abspath ../../../shared/data)
export PATH := $(abspath ../../bin):$(PATH)
OUT    := out/classes
UD     := $(SHARED)/ud-nopunct
LANGS  ?= $(foreach l,en zh tr pt ja de bg eu fr it pl es nl,$(if $(wildcard $(UD)/$(l)-ud-dev-nopunct.conllu),$(l)))
SETS   := $(if $(wildcard $(SHARED)/ptb-sample),ptb) $(LANGS)
RUNS   := $(foreach s,$(SETS),$(foreach m,brown klein,$(OUT)/$(s).$(m)))

.PHONY: all clean
.SECONDEXPANSION:
all: $(RUNS:=.json)
	@echo "| data | method | K | many-to-1 | 1-to-1 | VI (bits) |"
	@echo "|---|---|---:|---:|---:|---:|"
	@for r in $(RUNS); do jq -r --arg r "$$(basename $$r)" \
	  '"| \($$r | split(".")[0]) | \($$r | split(".")[1]) | \(.induced_tags) | \(.many_to_1*1000|round/10) | \(.one_to_1*1000|round/10) | \(.vi*1000|round/1000) |"' $$r.json; done
	@for m in brown klein; do jq -s -r --arg m $$m \
	  '"| UD mean (\(length) languages) | \($$m) | | \(map(.many_to_1)|add/length*1000|round/10) | \(map(.one_to_1)|add/length*1000|round/10) | \(map(.vi)|add/length*1000|round/1000) |"' \
	  $(foreach l,$(LANGS),$(OUT)/$(l).$$m.json); done

$(OUT)/ptb.jsonl:
	@mkdir -p $(@D)
	ptb2deps --keep-punct $(SHARED)/ptb-sample/wsj/*/*.mrg -o $@
$(OUT)/%.jsonl:
	@mkdir -p $(@D)
	conll2deps --tag upos -q $(UD)/$*-ud-dev-nopunct.conllu -o $@

# K = the number of gold tags of the set.
$(OUT)/%.json: $$(OUT)/$$(basename $$*).jsonl
	train-classes --method $(subst .,,$(suffix $*)) -q --workers 1 \
	  --classes $$(jq -r '.tags[]' $< | sort -u | wc -l) $< | score-tags --json -o $@
clean:
	rm -rf $(OUT)
