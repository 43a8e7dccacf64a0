#!/usr/bin/env zsh
# complete.zsh FPATH LINE: the words zsh's completion offers at the end
# of LINE, one a line, with the completion functions of FPATH loaded by
# compinit. It runs an interactive zsh in a pseudo-terminal (zpty),
# presses Tab there, and prints what the completion system gave compadd.
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
local line
zpty -w z 'print "<""<ready>"">"'
while zpty -r z line; do [[ $line == *'<<ready>>'* ]] && break; done
zpty -w -n z "$2"$'\t'
zpty -w -n z $'\C-u'
zpty -w z 'print "<""<done>"">"'
while zpty -r z line; do
  while [[ $line =~ '<<(([^>]|>[^>])*)>>' ]]; do
    [[ $match[1] == done ]] && break 2
    print -r -- $match[1]
    line=${line#*$MATCH}
  done
done
zpty -d z
