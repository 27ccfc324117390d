#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict over every C source and header of the patchset.
# Exits non-zero on any error or warning. $1: extracted kernel source
# (see vm/ksrc.sh).

set -u -o pipefail
ksrc=${1:?usage: checkpatch.sh KSRC}
repo=$(cd "$(dirname "$0")/../../../../.." && pwd)
cd "$repo"
"$repo/tools/testing/selftests/net/quic/vm/ksrc.sh" "$ksrc" || exit 1

files=$(git ls-files -co --exclude-standard -- '*.c' '*.h') ||
	{ echo "checkpatch.sh: git ls-files failed" >&2; exit 1; }
mapfile -t files < <(grep -v '\.mod\.c$' <<<"$files")
[ ${#files[@]} -gt 0 ] && [ -n "${files[0]}" ] ||
	{ echo "checkpatch.sh: no C files found" >&2; exit 1; }
out=$(perl "$ksrc/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES -f "${files[@]}")
status=$?
echo "$out"
# checkpatch exits 1 on any report; only errors and warnings fail us.
if grep -qE ':[0-9]+: (ERROR|WARNING):' <<<"$out"; then
	exit 1
fi
[ "$status" -le 1 ] || { echo "checkpatch.sh: checkpatch.pl failed ($status)" >&2; exit 1; }
exit 0
