# The checks every experiment script of pipelines/ makes of its variables
# before it makes a directory or runs a tool, its shards, and the removal of
# its partial files however it ends. Sourced by each script once it has set
# TOOL (its name in messages) and its variables' defaults:
#
#   TOOL=othellox
#   source "$(dirname "$0")/lib.sh"
#   check_shard; check_step all items summary; check_ints COUNT 1; ...
#
# A refusal is one line, `TOOL: VAR must be WHAT, not `VALUE``, exit code 2,
# before anything is made.

# Refuses variable $1 (its value named), $2 saying what it accepts. A value
# holding a newline or another control character is shown escaped, as bash
# quotes it ($'a\nb'): the refusal stays one line.
refuse() {
  local v=${!1-}
  [[ $v = *[[:cntrl:]]* ]] && v=$(printf %q "$v")
  echo "$TOOL: $1 must be $2, not \`$v\`" >&2
  exit 2
}

# SHARD=K/N with 1 <= K <= N (default 1/1): `mine I` is true for the items
# (numbered from 1) of this shard, every N-th from the K-th.
check_shard() {
  SHARD=${SHARD:-1/1}
  [[ $SHARD =~ ^([1-9][0-9]{0,8})/([1-9][0-9]{0,8})$ ]] && ((BASH_REMATCH[1] <= BASH_REMATCH[2])) ||
    refuse SHARD "K/N with 1 <= K <= N (e.g. 2/4: every 4th item from the 2nd)"
  shard_k=${BASH_REMATCH[1]} shard_n=${BASH_REMATCH[2]}
}
mine() { (((($1) - 1) % shard_n == shard_k - 1)); }

# STEP: one of the script's steps, $@ (the first is the default).
check_step() {
  STEP=${STEP:-$1}
  local s
  for s in "$@"; do [[ $STEP = "$s" ]] && return 0; done
  refuse STEP "$(one_of "$@")"
}

# "a, b or c".
one_of() {
  local out=$1
  shift
  while (($# > 1)); do out+=", $1"; shift; done
  (($# == 1)) && out+=" or $1"
  echo "$out"
}

# The words of a range from $1 to $2 (no upper bound without $2): ">= 1",
# "from 2 to 4096"; `in_range V MIN [MAX]` is true for a whole number V
# written without leading zeros in that range.
range_text() {
  if [[ -n ${2-} ]]; then echo "from $1 to $2"; else echo ">= $1"; fi
}
in_range() { # value min [max]
  [[ $1 =~ ^(0|[1-9][0-9]{0,8})$ ]] && (($1 >= $2)) && [[ -z ${3-} || $1 -le $3 ]]
}

# Variable $1 is one whole number from $2 to $3 (no upper bound without $3).
check_int() {
  in_range "${!1-}" "$2" "${3-}" || refuse "$1" "a whole number $(range_text "$2" "${3-}")"
}

# Variable $1 is a list of whole numbers from $2 to $3 separated by spaces,
# at least one, none twice (e.g. PROCS="2 4").
check_ints() {
  local v seen=" "
  local what="whole numbers $(range_text "$2" "${3-}") separated by spaces (e.g. \"$2 $(($2 * 2))\"), each once"
  [[ -n ${!1//[[:space:]]/} ]] || refuse "$1" "$what"
  for v in ${!1}; do
    in_range "$v" "$2" "${3-}" && [[ $seen != *" $v "* ]] || refuse "$1" "$what"
    seen+="$v "
  done
}

# Variable $1 is a list of the words $2... separated by spaces, at least
# one, none twice.
check_words() {
  local var=$1 v w ok seen=" "
  shift
  local what="some of $(one_of "$@") separated by spaces, each once"
  [[ -n ${!var//[[:space:]]/} ]] || refuse "$var" "$what"
  for v in ${!var}; do
    ok=
    for w in "$@"; do [[ $v = "$w" ]] && ok=1; done
    [[ -n $ok && $seen != *" $v "* ]] || refuse "$var" "$what"
    seen+="$v "
  done
}

# Variable $1 is a list of entries separated by spaces, at least one, none
# twice, each matching the extended regular expression $2; $3 says what an
# entry is.
check_entries() {
  local v seen=" "
  [[ -n ${!1//[[:space:]]/} ]] || refuse "$1" "$3 separated by spaces, each once"
  for v in ${!1}; do
    [[ $v =~ ^($2)$ && $seen != *" $v "* ]] || refuse "$1" "$3 separated by spaces, each once"
    seen+="$v "
  done
}

# Variable $1 names a directory the script may make or write: not empty,
# and neither it nor a folder above it an existing file.
check_dir() {
  local p=${!1-}
  [[ -n $p ]] || refuse "$1" "a directory"
  while [[ ! -e $p && ! -L $p ]]; do
    [[ $p = */* ]] || { p=.; break; }
    p=${p%/*}
    [[ -n $p ]] || p=/
  done
  if [[ ! -d $p ]]; then
    [[ $p = "${!1}" ]] && refuse "$1" "a directory (this is a file)"
    refuse "$1" "a directory (\`$p\` is a file)"
  fi
  [[ -w $p ]] || refuse "$1" "a directory this user may write (\`$p\` is not writable)"
}

# Variable $1 is a list of cluster algorithm names separated by $2 (a space
# or a comma), at least one, none twice, each one pabsim takes (a registered
# name, or YBWC with switches: ybwc+helpful): asked of pabsim itself, so
# that a name it would refuse after hours of items is refused here. Needs
# BIN checked (check_tools pabsim).
check_algorithms() {
  local v seen=" " list=${!1-} what="cluster algorithm names (pabsim --machine cluster --list-algorithms, or YBWC with switches, e.g. ybwc+helpful)"
  [[ $2 = , ]] && what+=" separated by commas, each once" || what+=" separated by spaces, each once"
  [[ $2 = , ]] && list=${list//,/ }
  [[ -n ${list//[[:space:]]/} ]] || refuse "$1" "$what"
  [[ $2 != , || ${!1} =~ ^[^,[:space:]]+(,[^,[:space:]]+)*$ ]] || refuse "$1" "$what"
  for v in $list; do
    [[ $v =~ ^[a-z][a-z0-9+-]*$ && $seen != *" $v "* ]] || refuse "$1" "$what"
    "$BIN/pabsim" --ura2014 configs --procs 2 --algorithm "$v" > /dev/null 2>&1 || refuse "$1" "$what"
    seen+="$v "
  done
}

# Variable $1 names an existing readable file.
check_file() {
  [[ -f ${!1-} && -r ${!1-} ]] || refuse "$1" "a readable file"
}

# BIN holds the built tools $@ (cargo build --release).
check_tools() {
  local t
  for t in "$@"; do
    [[ -x $BIN/$t && ! -d $BIN/$t ]] || refuse BIN "the directory of the built tools (cargo build --release; no $t there)"
  done
}

# The files a script is writing (a partial item, a summary's .tmp) are
# listed in `partial`: they are removed however it ends (a failing tool, or
# a signal: bash runs the EXIT trap once the child has stopped). Set
# `partial=(FILE...)` before the first byte is written, `partial=()` once
# they are renamed.
partial=()
trap 'rm -f -- "${partial[@]}"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
