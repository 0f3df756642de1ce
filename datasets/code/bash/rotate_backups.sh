#!/usr/bin/env bash
# Creates a compressed, dated backup of a directory and keeps only the
# newest N archives. Usage: rotate_backups.sh SOURCE_DIR DEST_DIR [KEEP]
set -euo pipefail

log() {
    printf '%s %s\n' "$(date '+%Y-%m-%d %H:%M:%S')" "$*" >&2
}

die() {
    log "error: $*"
    exit 1
}

usage() {
    echo "usage: ${0##*/} SOURCE_DIR DEST_DIR [KEEP]" >&2
    exit 2
}

[[ $# -ge 2 && $# -le 3 ]] || usage

source_dir=${1%/}
dest_dir=${2%/}
keep=${3:-7}

[[ -d $source_dir ]] || die "source directory '$source_dir' does not exist"
[[ $keep =~ ^[0-9]+$ && $keep -ge 1 ]] || die "KEEP must be a positive integer, got '$keep'"
mkdir -p -- "$dest_dir"

name=$(basename -- "$source_dir")
stamp=$(date '+%Y%m%d-%H%M%S')
archive="$dest_dir/${name}-${stamp}.tar.gz"
tmp="${archive}.partial"

# Write to a temporary name first so that an interrupted run never leaves
# a truncated archive that looks complete.
trap 'rm -f -- "$tmp"' EXIT
log "archiving $source_dir -> $archive"
tar -C "$(dirname -- "$source_dir")" -czf "$tmp" -- "$name"
mv -- "$tmp" "$archive"
trap - EXIT

size=$(du -h -- "$archive" | cut -f1)
log "wrote $archive ($size)"

# List this source's archives newest first and delete everything after KEEP.
mapfile -t archives < <(ls -1t -- "$dest_dir/${name}"-*.tar.gz 2>/dev/null || true)
if (( ${#archives[@]} > keep )); then
    for old in "${archives[@]:keep}"; do
        log "removing old backup $old"
        rm -f -- "$old"
    done
fi
log "done: ${#archives[@]} archive(s) found, keeping at most $keep"
