#!/usr/bin/env zsh
# Asks a real interactive zsh (inside a pseudo-terminal, through zsh/zpty) to
# complete a command line, the way a user's <TAB> does, and prints the matches
# one per line. zsh's completion system only runs inside the line editor, so a
# pty is the honest way to drive it without a person at the keyboard.
#   zsh -f zsh-complete.zsh <completion file> <command line>
zmodload zsh/zpty || { print -u2 'zsh/zpty is missing'; exit 2 }
local script=$1 line=$2
local work=$(mktemp -d)
local out=$work/matches

# The completion file is either an autoloadable `#compdef` function (installed
# into $fpath as _svc) or a script that calls compdef itself after compinit.
local setup
if [[ $(head -n 1 $script) == '#compdef'* ]]; then
  mkdir -p $work/functions && cp $script $work/functions/_svc
  setup="fpath=($work/functions \$fpath); autoload -U compinit; compinit -u -d $work/zcompdump"
else
  setup="autoload -U compinit; compinit -u -d $work/zcompdump; source ${(q)script}"
fi

cat > $work/rc.zsh <<RC
PROMPT=''
$setup
# Record every match offered; calls that only filter (-O, -A, -D) pass through.
compadd() {
  if [[ \${(j: :)@} == *(-O|-A|-D)* ]]; then builtin compadd "\$@"; return; fi
  local -a hits
  builtin compadd -A hits "\$@"
  (( \$#hits )) && print -rl -- \$hits >> $out
  builtin compadd "\$@"
}
finish-capture() { print -r -- '<<done>>' >> $out }
comppostfuncs=(finish-capture)
zstyle ':completion:*' list-grouped false
bindkey '^I' complete-word
print -r -- ready
RC

zpty z zsh -f -i
zpty -w z "source $work/rc.zsh"
local chunk ready=0
repeat 50; do
  zpty -r -t z chunk 2>/dev/null && [[ $chunk == *ready* ]] && { ready=1; break }
  sleep 0.1
done
(( ready )) || { print -u2 'the zsh in the pty did not start'; exit 2 }

zpty -n -w z "$line"$'\t'
repeat 150; do
  [[ -f $out ]] && grep -q '<<done>>' $out && break
  zpty -r -t z chunk 2>/dev/null
  sleep 0.1
done
zpty -d z
[[ -f $out ]] || { print -u2 'no completion ran'; exit 3 }
grep -v '<<done>>' $out | sort -u
rm -rf $work
