#!/bin/sh
# The table of examples/ccm/Makefile from its predictions in DIR.
set -eu
dir=$1
pct() { jq -r "$1" | awk '{ if ($0 == "null" || $0 == "") print "–"; else printf "%.1f\n", 100*$0 }'; }
echo "| data | system | UP | UR | F1 | S&E F | dir | undir |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for set in en-test en-all es zh; do
	case $set in
	en-test) name="English train → test" ;;
	en-all) name="English all (train = test)" ;;
	es) name="Spanish" ;;
	zh) name="Chinese" ;;
	esac
	for sys in lbranch rbranch random ubound ccm-em ccm2-em ccm-sda ccm-da ccm2-sda ccm-sda-start ccm2-sda-start dmvccm dmvccm-rf dmv; do
		case $sys in
		random) f=$dir/$set.lbranch.jsonl ;;
		*) f=$dir/$set.$sys.jsonl ;;
		esac
		json=$(score --json "$f")
		if [ $sys = random ]; then
			b=random_expected
			up=$(echo "$json" | pct ".brackets.random_expected.precision")
			ur=$(echo "$json" | pct ".brackets.random_expected.recall")
			f1=$(echo "$json" | pct ".brackets.random_expected.f1")
			se="–"
		else
			up=$(echo "$json" | pct ".brackets.standard.precision")
			ur=$(echo "$json" | pct ".brackets.standard.recall")
			f1=$(echo "$json" | pct ".brackets.standard.f1")
			se=$(echo "$json" | pct ".brackets.smith_eisner.f1")
		fi
		d="–" u="–"
		case $sys in dmvccm | dmvccm-rf | dmv)
			case $set in en-*)
				d=$(echo "$json" | pct ".directed")
				u=$(echo "$json" | pct ".undirected") ;;
			esac ;;
		esac
		label=$(echo $sys | sed 's/lbranch/LBRANCH/; s/rbranch/RBRANCH/; s/^random/RANDOM (expected)/; s/ubound/UBOUND/;
			s/ccm2-sda-start/CCM2 SDA, start skew/; s/ccm-sda-start/CCM SDA, start skew/;
			s/ccm2-em/CCM2 EM/; s/ccm2-sda/CCM2 SDA/; s/ccm-em/CCM EM/; s/ccm-sda/CCM SDA/; s/ccm-da/CCM DA/;
			s/dmvccm-rf/DMV+CCM right-first/; s/dmvccm/DMV+CCM/; s/^dmv$/DMV (km start)/')
		echo "| $name | $label | $up | $ur | $f1 | $se | $d | $u |"
	done
done
