#!/usr/bin/env bash
# Runs the completion function a real bash registered for `svc`, with the
# COMP_* variables bash sets on <TAB>, and prints COMPREPLY one per line.
#   bash --norc bash-complete.bash <completion file> <command line>
set -u
source "$1"
line=$2
spec=$(complete -p svc 2>/dev/null) || { echo 'no completion registered for svc' >&2; exit 2; }
[[ $spec == *" -F "* ]] || { echo "unexpected completion spec: $spec" >&2; exit 2; }
fn=${spec#* -F }; fn=${fn%% *}
COMP_LINE=$line
COMP_POINT=${#line}
COMP_TYPE=9
COMP_KEY=9
read -ra COMP_WORDS <<< "$line"
[[ $line == *' ' ]] && COMP_WORDS+=('')
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMPREPLY=()
"$fn" svc "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}" | sort -u
