#!/usr/bin/env zsh
# complete.zsh FPATH LINE: the words zsh's completion offers at the end
# of LINE, one a line, with the completion functions of FPATH loaded by
# compinit. It runs an interactive zsh in a pseudo-terminal (zpty),
# completes there as Tab does, and prints what the completion system gave
# compadd.
# The markers are written so that the terminal's echo of the commands
# does not hold them.
emulate -L zsh
zmodload zsh/zpty || exit 2
zpty z zsh -f -i || exit 2
zpty -w z "fpath=(${(q)1} \$fpath); PROMPT=; autoload -U compinit; compinit -u -D"
# compadd with -O, -A or -D only fills an array for the completion
# system's own use: what is offered is the rest.
zpty -w z 'compadd() {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
  local -a hits; builtin compadd -A hits "$@"
  (( $#hits )) && print -rl -- "<""<"${^hits}">"">"
  builtin compadd "$@"
}'
# Ctrl-T completes as Tab does, then marks the end of what it offered
# and clears the line: one key, so nothing typed ahead can cut the
# completion short.
zpty -w z 'complete-then-mark() { zle complete-word; print -r -- "<""<done>"">"; zle kill-whole-line }'
zpty -w z 'zle -N complete-then-mark; bindkey "^T" complete-then-mark'
# zpty -r with a pattern reads until what it has read matches, whatever
# the lines and the terminal's escapes.
local out
zpty -w z 'print -r -- "<""<ready>"">"'
zpty -r z out '*<<ready>>*' || exit 2
zpty -w -n z "$2"$'\C-t'
zpty -r z out '*<<done>>*' || exit 2
while [[ $out =~ '<<(([^>]|>[^>])*)>>' ]]; do
  [[ $match[1] == done ]] && break
  print -r -- $match[1]
  out=${out#*$MATCH}
done
zpty -d z
