# Shared by the set-up scripts: runs a `swift build` and shows its progress without the wall of
# package noise: dependency resolution steps, the build's own step counter at most every 15 s
# (and at each tenth), errors with their context, and how long it took. Warnings are counted
# (the full log is kept for anyone who wants them).
#
#   swift_build_with_progress LABEL swift build [ARGS...]
#
# Exits with the build's status. The full output is in $BUILD_LOG (default: a temporary file).

swift_build_with_progress() {
  local label=$1
  shift
  local log=${BUILD_LOG:-$(mktemp -t pushmedia-build.XXXXXX)}
  local started=$SECONDS status=0
  printf '==> building %s (%s)\n' "$label" "$*" >&2
  # Inside `{ } || true`, a failing build does not end a `set -e` script before its status is read.
  { "$@" 2>&1 | tee "$log" | _show_build_progress "$label"; status=${PIPESTATUS[0]}; } || true
  local elapsed=$((SECONDS - started)) warnings
  warnings=$(grep -c 'warning:' "$log" || true)
  if ((status == 0)); then
    printf '==> built %s in %dm%02ds (%s warnings; full log: %s)\n' "$label" $((elapsed / 60)) $((elapsed % 60)) "$warnings" "$log" >&2
  else
    printf '==> building %s failed after %dm%02ds; full log: %s\n' "$label" $((elapsed / 60)) $((elapsed % 60)) "$log" >&2
  fi
  return "$status"
}

# Reads a build's output on standard input; prints the lines worth seeing on standard error.
_show_build_progress() {
  local label=$1 started=$SECONDS last_shown=-100 last_tenth=-1 in_error=0 line
  while IFS= read -r line; do
    local elapsed=$((SECONDS - started))
    if [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
      in_error=0
      local done=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]}
      local tenth=$((total > 0 ? done * 10 / total : 0))
      if ((elapsed - last_shown >= 15 || tenth > last_tenth)); then
        printf '    %s: step %d of %d (%d%%), %dm%02ds\n' "$label" "$done" "$total" $((total > 0 ? done * 100 / total : 0)) \
          $((elapsed / 60)) $((elapsed % 60)) >&2
        last_shown=$elapsed
        last_tenth=$tenth
      fi
    elif [[ $line == *"error:"* ]]; then
      in_error=1
      printf '%s\n' "$line" >&2
    elif [[ $line == *"warning:"* ]]; then
      in_error=0
    elif [[ $line =~ ^(Fetching|Fetched|Cloning|Cloned|Computing|Computed|Creating\ working\ copy|Working\ copy|Updating|Updated|Build\ complete|Compiling\ plugin|Building\ for) ]]; then
      in_error=0
      printf '    %s\n' "$line" >&2
    elif ((in_error)); then
      printf '%s\n' "$line" >&2
    fi
  done
}
