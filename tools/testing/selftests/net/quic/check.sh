#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make check": run every test in one VM boot plus the host-side checks,
# and print one closing line "N passed, N failed, N skipped". Exits
# non-zero on any failure. Nothing here asserts a time.

set -u
dir=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$dir/../../../../.." && pwd)
out=${QUIC_VM_OUT:-$repo/.vm}
mkdir -p "$out"
results=$out/results
host_results=$out/host-results
: >"$host_results"

record() {
	echo "$1 $2: $3" >>"$host_results"
}

# Host side: the C sources must be checkpatch --strict clean.
if "$dir/checkpatch.sh" "${KSRC:-$repo/.cache/linux-source}" >"$out/checkpatch.log" 2>&1; then
	record ok host "checkpatch --strict reports no errors or warnings"
else
	record "not ok" host "checkpatch --strict reports no errors or warnings"
	cat "$out/checkpatch.log"
fi

# Host side: the choice between KVM and TCG (vm/accel), against qemu
# wrappers that act out a broken KVM.
"$dir/vm/test_accel.sh" >>"$host_results" 2>"$out/test_accel.log"

# vm_run NAME DIR [VAR=VALUE...]: every test in one boot, with the
# environment given; its verdicts go to the host results as suite NAME,
# its test results to DIR/results.
vm_run() {
	local name=$1 vout=$2 vm_rc runner_rc
	shift 2
	mkdir -p "$vout"
	rm -f "$vout/results" "$vout/verdict" "$vout/rc"
	env "$@" QUIC_VM_OUT="$vout" "$dir/vm/run" -- "$dir/run_tests.sh"
	vm_rc=$?
	if [ -f "$vout/verdict" ] && grep -q "guest died" "$vout/verdict"; then
		record "not ok" "$name" "guest ran to the end"
	else
		record ok "$name" "guest ran to the end"
	fi
	if grep -q "kernel-log clean" "$vout/verdict" 2>/dev/null; then
		record ok "$name" "kernel log free of WARN/BUG/Oops/KASAN/lockdep/hung tasks"
	else
		record "not ok" "$name" "kernel log free of WARN/BUG/Oops/KASAN/lockdep/hung tasks"
	fi
	if grep -q "modules ok" "$vout/verdict" 2>/dev/null; then
		record ok "$name" "our modules load and unload"
	else
		record "not ok" "$name" "our modules load and unload"
	fi
	runner_rc=$(cat "$vout/rc" 2>/dev/null || echo none)
	if [ "$runner_rc" = 0 ]; then
		record ok "$name" "test runner completed"
	else
		record "not ok" "$name" "test runner completed (status $runner_rc, vm/run $vm_rc)"
	fi
}

# Debian's stock kernel.
vm_run vm "$out"

# The debug kernel (vm/debug-kernel): linux-source-6.1 with the series
# applied and QUIC built in tree as modules, with KASAN, lockdep, kmemleak,
# UBSAN and debug objects. Its test results count as "debug/<suite>".
# Opt-in for now (QUIC_CHECK_DEBUG=1, or make check-debug): see
# Documentation/networking/quic.rst, "Testing".
debug_results=
if [ "${QUIC_CHECK_DEBUG:-0}" != 0 ]; then
	dout=$out/debug
	dbuild=$dout/build
	mkdir -p "$dout"
	if dkver=$("$dir/vm/debug-kernel" 2>"$dout.kernel.log"); then
		dtree=$("$dir/vm/debug-kernel" --tree)
		record ok debug "the series applies to linux-source-6.1 and builds ($dkver)"
		# W=1 and sparse on our files, out of tree against the same
		# kernel (the tree's own build does not use W=1: the rest of
		# the kernel is not clean with it).
		rm -rf "$dbuild"
		mkdir -p "$dbuild"
		(cd "$repo" && tar -cf - --exclude='*.o' --exclude='*.ko' \
			--exclude='.*.cmd' --exclude='*.mod*' --exclude='modules.order' \
			--exclude='Module.symvers' Kbuild Kconfig include lib net) |
			tar -xf - -C "$dbuild"
		if make -C "$dtree" M="$dbuild" W=1 C=1 KCFLAGS=-Werror modules \
			>"$dout.w1.log" 2>&1 &&
		   ! grep -E ': (warning|error):' "$dout.w1.log"; then
			record ok debug "W=1 and sparse clean against the debug kernel"
		else
			record "not ok" debug "W=1 and sparse clean against the debug kernel"
			tail -n 30 "$dout.w1.log"
		fi
		# The VM loads the modules of the tree itself.
		printf '%s\n' "$dtree/net/quic/quic.o" "$dtree/net/quic/quic_test.o" \
			"$dtree/lib/test_prandom_siphash.o" >"$dout/modules.order"
		vm_run debug "$dout" QUIC_VM_KVER="$dkver" QUIC_VM_BUILD="$dout" \
			QUIC_VM_TIMEOUT=5400 QUIC_STREAMS_BIG_MIB=16 \
			QUIC_INTEROP_SIZES=1048576 QUIC_PATHS_SIZE=524288
		debug_results=$(sed -E 's/^(ok|not ok|skip) /&debug\//' \
			"$dout/results" 2>/dev/null)
	else
		record "not ok" debug "the series applies to linux-source-6.1 and builds"
		tail -n 30 "$dout.kernel.log"
	fi
fi

all=$(cat "$host_results" "$results" 2>/dev/null; echo "$debug_results")
passed=$(grep -c '^ok ' <<<"$all")
skipped=$(grep -c '^skip ' <<<"$all")
failed=$(grep -c '^not ok ' <<<"$all")
echo
if [ "$failed" -gt 0 ]; then
	echo "Failed:"
	grep '^not ok ' <<<"$all" | sed 's/^not ok /  /'
fi
if [ "$skipped" -gt 0 ]; then
	echo "Skipped:"
	grep '^skip ' <<<"$all" | sed 's/^skip /  /'
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
