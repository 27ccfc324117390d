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
. "$dir/vm/kreport.sh"
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

# Host side: libquic installed as a user installs it (make install, into
# a prefix of its own), and an application built against it with nothing
# but pkg-config and the installed headers; the VM runs it (app/).
app=$dir/app/build
rm -rf "$app"
mkdir -p "$app"
if make -s -C "$repo/tools/lib/quic" install PREFIX="$app/prefix" \
	>"$app/build.log" 2>&1 &&
   PKG_CONFIG_PATH="$app/prefix/lib/pkgconfig" \
	pkg-config --cflags --libs libquic >"$app/flags" 2>>"$app/build.log" &&
   ${CC:-cc} -Wall -Wextra -Werror -o "$app/quic_echo" \
	"$dir/app/quic_echo.c" $(cat "$app/flags") -pthread \
	-Wl,-rpath,"$app/prefix/lib" >>"$app/build.log" 2>&1; then
	record ok host "an application builds with pkg-config against the installed libquic"
else
	record "not ok" host "an application builds with pkg-config against the installed libquic"
	tail -n 20 "$app/build.log"
fi

# Host side: the choice between KVM and TCG (vm/accel.sh), against qemu
# wrappers that act out a broken KVM.
"$dir/vm/test_accel.sh" >>"$host_results" 2>"$out/test_accel.log"

# Host side: tools/quic/qlog on the recorded traces of qlog/ (perf script,
# trace-cmd report, tracefs text, and one with bad lines) and its --check;
# one result, the failed checks each on their own (all in test_qlog.out).
"$dir/qlog/test_qlog.py" >"$out/test_qlog.out" 2>"$out/test_qlog.log"
qlog_rc=$?
qlog_ok=$(grep -c '^ok ' "$out/test_qlog.out")
if [ "$qlog_rc" -eq 0 ] && [ "$qlog_ok" -gt 0 ]; then
	record ok host "tools/quic/qlog turns traces into JSON-SEQ qlog ($qlog_ok checks)"
else
	grep '^not ok ' "$out/test_qlog.out" >>"$host_results"
	record "not ok" host "tools/quic/qlog turns traces into JSON-SEQ qlog (exit $qlog_rc)"
	tail -n 5 "$out/test_qlog.log"
fi

# vm_run NAME DIR [VAR=VALUE...]: every test in one boot, with the
# environment given (to vm/run.sh and to the tests in the guest); its
# verdicts go to the host results as suite NAME, its test results to
# DIR/results.
vm_run() {
	local name=$1 vout=$2 vm_rc runner_rc
	shift 2
	mkdir -p "$vout"
	rm -f "$vout/results" "$vout/verdict" "$vout/rc"
	env "$@" QUIC_VM_OUT="$vout" "$dir/vm/run.sh" -- env "$@" "$dir/run_tests.sh"
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
		record "not ok" "$name" \
			"test runner completed (status $runner_rc, vm/run.sh $vm_rc)"
	fi
}

# prefixed_results NAME FILE: the results in FILE as "<verdict> NAME/<suite>: ...".
prefixed_results() {
	sed -E "s/^(ok|not ok|skip) /&$1\//" "$2" 2>/dev/null
}

# The suites the debug kernel runs in make check (run_tests.sh's names;
# QUIC_DEBUG_SUITES overrides, "all" for every one): those whose kernel
# code has the most state to leak or lock wrongly (sockets and options,
# hostile input, Retry and tokens, 0-RTT, streams with loss, migration,
# key updates, page references, sock_diag, ngtcp2 and floods at a
# listener). The rest (ALPN, the socket-API draft's examples, the
# transfers across a router, ECN, tracepoints) runs on the stock kernel
# in make check, and on the debug kernel too in make check-all
# ("debug-full"), so that make check stays within its hour.
debug_suites="socket sockopt test_handshake test_socket udp handshake hostile
	retry streams resume conn counters keyupdate zerocopy diag app interop
	flood"

# The debug kernel (vm/debug-kernel.sh): linux-source-6.1 with the series
# applied and QUIC built in tree as modules, with KASAN, lockdep, kmemleak,
# UBSAN, debug objects and KUnit. Its test results count as "debug/<suite>".
# run_debug [full]: every suite with "full", else $debug_suites.
run_debug() {
	local dout=$out/debug dbuild=$out/debug/build dkver dtree only
	local ciphers=AES-128-GCM
	only=$(echo ${QUIC_DEBUG_SUITES:-$debug_suites})
	# Every suite, and interop with every cipher (empty: all of them).
	[ "${1:-}" = full ] || [ "$only" = all ] && only= ciphers=
	mkdir -p "$dout"
	if ! dkver=$("$dir/vm/debug-kernel.sh" 2>"$dout.kernel.log"); then
		record "not ok" debug "the series applies to linux-source-6.1 and builds"
		tail -n 30 "$dout.kernel.log"
		return
	fi
	dtree=$("$dir/vm/debug-kernel.sh" --tree)
	echo "# debug kernel $dkver ready after $SECONDS s"
	record ok debug "the series applies to linux-source-6.1 and builds ($dkver)"
	# W=1 and sparse on our files, out of tree against the same kernel
	# (the tree's own build does not use W=1: the rest of the kernel is
	# not clean with it).
	copy_sources "$dbuild"
	if make -C "$dtree" M="$dbuild" W=1 C=1 KCFLAGS=-Werror modules \
		>"$dout.w1.log" 2>&1 &&
	   ! grep -E ': (warning|error):' "$dout.w1.log"; then
		record ok debug "W=1 and sparse clean against the debug kernel"
	else
		record "not ok" debug "W=1 and sparse clean against the debug kernel"
		tail -n 30 "$dout.w1.log"
	fi
	# The VM loads the modules of the tree itself. Under TCG the debug
	# kernel runs the tests some eight times slower than Debian's, so
	# the transfers across namespaces are narrowed: smaller files, IPv4
	# only, and across the router only our own client (whose kernel
	# code, client and server, is what the debug kernel is there for).
	printf '%s\n' "$dtree/net/quic/quic.o" "$dtree/net/quic/quic_test.o" \
		"$dtree/net/quic/quic_diag.o" \
		"$dtree/lib/test_prandom_siphash.o" >"$dout/modules.order"
	vm_run debug "$dout" QUIC_VM_KVER="$dkver" QUIC_VM_BUILD="$dout" \
		QUIC_VM_TIMEOUT=5400 QUIC_STREAMS_BIG_MIB=16 \
		QUIC_INTEROP_SIZES=1048576 QUIC_INTEROP_FAMS=4 \
		QUIC_PATHS_SIZE=524288 QUIC_PATHS_FAMS=4 QUIC_PATHS_CLIENTS=h3 \
		QUIC_PATHS_HS_RUNS=2 QUIC_PATHS_HS_TIMEOUT=60 \
		QUIC_FLOOD_RATE=300 QUIC_MIGRATE_FAMS=4 QUIC_ECN_FAMS=4 \
		QUIC_TRACE_SIZE=1048576 QUIC_INTEROP_CIPHERS="$ciphers" \
		QUIC_RUN_ONLY="$only"
	run_results+=$(prefixed_results debug "$dout/results")$'\n'
}

# copy_sources DIR: the kernel-side sources, for a build outside the
# checkout (kbuild builds external modules in place).
copy_sources() {
	rm -rf "$1"
	mkdir -p "$1"
	(cd "$repo" && tar --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--exclude='.*.d' --exclude='*.mod*' --exclude='modules.order' \
		--exclude='Module.symvers' -cf - Kbuild Kconfig include lib net samples) |
		tar -xf - -C "$1"
}

# run_debian SERIES [ONLY [NAME]]: Debian's kernel of SERIES (6.12,
# 6.12-rt): our modules built W=1 against its headers, then the tests in
# its VM: the in-kernel tests and the suites ONLY names (run_tests.sh's
# QUIC_RUN_ONLY; "ktap", none; empty, all). Results as "NAME/<suite>",
# NAME being SERIES unless given.
run_debian() {
	local series=$1 only=${2:-} name=${3:-$1} kver rout bout
	rout=$out/$name
	bout=$rout/build
	mkdir -p "$rout"
	kver=$(QUIC_VM_KVER=$series "$dir/vm/kver.sh")
	if [ -z "$kver" ] ||
	   ! QUIC_VM_KVER=$kver "$dir/vm/provision.sh" 2>"$rout.provision.log"; then
		record "not ok" "$name" "Debian's $name kernel and headers install"
		tail -n 20 "$rout.provision.log"
		return
	fi
	copy_sources "$bout"
	if make -C "/usr/src/linux-headers-$kver" M="$bout" W=1 KCFLAGS=-Werror \
		modules >"$rout.build.log" 2>&1; then
		record ok "$name" "builds W=1 clean against linux-headers-$kver"
	else
		record "not ok" "$name" "builds W=1 clean against linux-headers-$kver"
		grep -E ': (warning|error):' "$rout.build.log" | head -n 30
		return
	fi
	vm_run "$name" "$rout" QUIC_VM_KVER="$kver" QUIC_VM_BUILD="$bout" \
		QUIC_RUN_ONLY="$only"
	run_results+=$(prefixed_results "$name" "$rout/results")$'\n'
}

# run_uml: the KUnit suites built into user-mode Linux by kunit.py
# (vm/kunit-uml.sh: the CONFIG_IP_QUIC=y build). Results as "uml/<suite>".
run_uml() {
	local uout=$out/uml
	mkdir -p "$uout"
	: >"$uout/results"
	if "$dir/vm/kunit-uml.sh" --raw_output=kunit >"$uout/ktap" 2>"$uout.log"; then
		record ok uml "kunit.py builds user-mode Linux with QUIC built in and runs it"
	else
		record "not ok" uml "kunit.py builds user-mode Linux with QUIC built in and runs it"
		tail -n 20 "$uout.log"
	fi
	(OUT=$uout RESULTS=$uout/results
	 . "$dir/ktap.sh"
	 while read -r v name; do
		case "$v" in
		plan) [ "${name% *}" -gt 0 ] && [ "${name% *}" = "${name#* }" ] ||
			result "not ok" kunit \
				"reports every planned test (${name#* } of ${name% *})" ;;
		not) result "not ok" kunit "${name#ok }" ;;
		*) result "$v" kunit "$name" ;;
		esac
	 done < <(ktap_leaves <"$uout/ktap")) >/dev/null
	run_results+=$(prefixed_results uml "$uout/results")$'\n'
}

# Which kernels: QUIC_CHECK_RUNS, words of "stock" (Debian's 6.1, the
# kernel linux-image-amd64 points to), "debug" (the debug kernel, above,
# with $debug_suites), "debug-full" (the same with every suite), "6.12"
# (Debian's 6.12), "6.12-kusers" (the same kernel with the in-kernel
# tests and kusers.sh only: what needs net/handshake, which 6.1 lacks,
# and our build against 6.12's headers), "6.12-rt" (its PREEMPT_RT
# flavour: the in-kernel tests only, for prandom_siphash's claims about
# PREEMPT_RT) and "uml" (the KUnit suites under user-mode Linux, built
# in). make check runs "stock debug 6.12-kusers"; make check-all "stock
# debug-full 6.12 6.12-rt uml".
run_results=
for run in ${QUIC_CHECK_RUNS:-stock debug 6.12-kusers}; do
	run_start=$SECONDS
	case "$run" in
	stock)
		vm_run vm "$out"
		run_results+=$(cat "$results" 2>/dev/null)$'\n' ;;
	debug) run_debug ;;
	debug-full) run_debug full ;;
	6.12) run_debian 6.12 ;;
	6.12-kusers) run_debian 6.12 kusers 6.12-kusers ;;
	6.12-rt) run_debian 6.12-rt ktap ;;
	uml) run_uml ;;
	*) record "not ok" host "known kernel run ($run)" ;;
	esac
	echo "# run $run: $((SECONDS - run_start)) s (make check so far: $SECONDS s)"
done

# failure_log "SUITE: TEST": what the kselftest harness printed about a
# failed test (its "# file:line:test:Expected ..." lines), from the TAP
# file of its run, so that the closing summary says why.
# guest_dir SUITE: where vm_run put the verdicts of the boot named SUITE.
guest_dir() {
	if [ "$1" = vm ]; then echo "$out"; else echo "$out/$1"; fi
}

failure_log() {
	local suite=${1%%: *} test=${1#*: } tdir=$out
	# A guest that died: the kernel's report, from vm/run.sh.
	case "$test" in
	"guest ran to the end")
		tdir=$(guest_dir "$suite")
		[ -s "$tdir/oops.log" ] && sed 's/^/      /' "$tdir/oops.log"
		return 0 ;;
	"kernel log free of"*)
		tdir=$(guest_dir "$suite")
		[ -s "$tdir/kernel-bad.log" ] &&
			head -n 20 "$tdir/kernel-bad.log" | sed 's/^/      /'
		return 0 ;;
	esac
	case "$suite" in
	*/*) tdir=$out/${suite%%/*}; suite=${suite#*/} ;;
	esac
	# A shell suite notes why a result failed as "# NAME: why" in its log.
	if [ ! -f "$tdir/$suite.tap" ]; then
		[ -f "$tdir/$suite.log" ] &&
			grep -F -- "# $test: " "$tdir/$suite.log" | head -n 5 |
			sed 's/^/      /'
		return 0
	fi
	awk -v t="$test" '$1 == "#" && $2 == "RUN" { p = ($3 == t) }
		p && /^#/ && $2 != "RUN" { print "      " $0 }
		/^(ok|not ok) / { p = 0 }' "$tdir/$suite.tap" | head -n 20
}

# failure_short "SUITE: guest ran to the end": the dead guest's report cut
# to what names the bug (the first lines, the faulting RIP, the top of the
# call trace), and the last test result the guest wrote before it died.
failure_short() {
	local tdir
	tdir=$(guest_dir "${1%%: *}")
	failure_log "$1" >"$out/short.log"
	awk -v re="$KREPORT_NAME" 'NR <= 2 || $0 ~ re { print; next }
	     /Call Trace:/ { t = 1; next }
	     t && /\+0x/ && t++ <= 8 { print }' "$out/short.log" | head -n 16
	[ -s "$tdir/results" ] &&
		echo "      last result before: $(tail -n 1 "$tdir/results")"
	return 0
}

all=$(cat "$host_results"; echo "$run_results")
passed=$(grep -c '^ok ' <<<"$all")
skipped=$(grep -c '^skip ' <<<"$all")
failed=$(grep -c '^not ok ' <<<"$all")
echo
if [ "$skipped" -gt 0 ]; then
	echo "Skipped:"
	grep '^skip ' <<<"$all" | sed 's/^skip /  /'
fi
if [ "$failed" -gt 0 ]; then
	mapfile -t failures < <(grep '^not ok ' <<<"$all" | sed 's/^not ok //')
	echo "Failed:"
	for line in "${failures[@]}"; do
		echo "  $line"
		failure_log "$line"
	done
	# The names once more, last, where a log cut to its tail shows
	# them: with a guest that died, the first lines of its report.
	echo "Failed, in short:"
	for line in "${failures[@]:0:12}"; do
		echo "  $line"
		case "$line" in
		*": guest ran to the end")
			failure_short "$line" ;;
		esac
	done
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
