#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every test of the patchset, run inside the test VM (see vm/run.sh) by
# check.sh: in-kernel selftests reporting KTAP, then the kselftests.

set -u
dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/ktap.sh"
: >"$RESULTS"

run_ktap_module test_prandom_siphash
run_ktap_module quic_test
# QUIC_RUN_ONLY: the suites that run after the in-kernel tests, by name
# ("socket hostile interop", as in run_tests.sh's "== NAME" lines); unset,
# all of them; "ktap", none. The module checks run whatever it says.
[ "${QUIC_RUN_ONLY:-}" = ktap ] && exit 0
want() {
	[ -z "${QUIC_RUN_ONLY:-}" ] && return 0
	case " $QUIC_RUN_ONLY " in
	*" $1 "*) return 0 ;;
	esac
	echo "== $1: not in QUIC_RUN_ONLY, not run in this boot"
	return 1
}

# socket() must autoload quic.ko through its net-pf-*-proto-261 aliases.
if rmmod quic; then
	result ok module "quic unloads when idle"
else
	result "not ok" module "quic unloads when idle"
fi
opened=
want socket && run_kselftest "$dir/socket" && opened=1
want sockopt && run_kselftest "$dir/sockopt"
want test_handshake && run_kselftest "$dir/../../../../lib/quic/test_handshake"
want test_socket && run_kselftest "$dir/../../../../lib/quic/test_socket"
if [ -z "$opened" ]; then
	:	# the socket suite did not run
elif [ -d /sys/module/quic ]; then
	result ok module "socket(IPPROTO_QUIC) autoloads quic"
else
	result "not ok" module "socket(IPPROTO_QUIC) autoloads quic"
fi
want udp && run_kselftest "$dir/udp"
want handshake && run_kselftest "$dir/handshake"
want hostile && run_kselftest "$dir/hostile"
want retry && run_kselftest "$dir/retry"
want alpn && run_kselftest "$dir/alpn"
want streams && run_kselftest "$dir/streams"
want compat && run_kselftest "$dir/compat"
want resume && run_kselftest "$dir/resume"
want conn && run_kselftest "$dir/conn"
want counters && run_kselftest "$dir/counters"
want keyupdate && run_kselftest "$dir/keyupdate"
# sendfile(), splice() and MSG_ZEROCOPY, with and without loss.
want zerocopy && run_kselftest "$dir/zerocopy"
# Listing sockets: QUIC_SOCKOPT_INFO, quic_diag (autoloaded by the first
# sock_diag request for IPPROTO_QUIC), quic-ss, /proc/net/quic/conns.
want diag && run_kselftest "$dir/diag"
if [ ! -d /sys/module/quic_diag ] || rmmod quic_diag; then
	result ok module "quic_diag unloads when idle"
else
	result "not ok" module "quic_diag unloads when idle"
fi
# An application built against the installed libquic (check.sh): one
# result per step it prints.
if ! want app; then
	:
elif [ -x "$dir/app/build/quic_echo" ]; then
	app_out=$(timeout 60 "$dir/app/build/quic_echo" 2>&1)
	app_rc=$?
	echo "$app_out"
	while read -r v what; do
		case "$v" in
		ok) result ok app "$what" ;;
		FAIL) result "not ok" app "$what" ;;
		esac
	done <<<"$app_out"
	[ "$app_rc" = 0 ] || result "not ok" app "quic_echo exits 0 (status $app_rc)"
else
	result "not ok" app "quic_echo was built (check.sh)"
fi
# The shell suites exit 1 when one of their results failed (4 when all
# were skipped), as kselftests do; their results are in $RESULTS already,
# and the run goes on whatever they exit with (no set -e here).
# timed SCRIPT: run a shell suite and say how long it took (for the CI
# log: the time of make check is a budget, not a test).
timed() {
	local start=$SECONDS
	"$@"
	echo "# $(basename "$1"): $((SECONDS - start)) s (ends at $(date +%s))"
}
# HTTP/3 with ngtcp2's gtlsserver and gtlsclient (interop.sh).
want interop && timed "$dir/interop.sh"
want flood && timed "$dir/flood.sh"	# junk, Initials, spoofed Initials, replays at h3server
# Transfers across a router namespace: delay, loss, a smaller MTU.
want paths && timed "$dir/paths.sh"
# A client whose port or address changes mid-transfer (path validation).
want migrate && timed "$dir/migrate.sh"
# ECN: CE marks counted and reacted to, bleached marks detected.
want ecn && timed "$dir/ecn.sh"
# The quic:* tracepoints of a transfer with loss against its quic_info.
want trace && timed "$dir/trace.sh"
# Kernel users: samples/quic with quic-agent through net/handshake (6.5+).
want kusers && timed "$dir/kusers.sh"
# The directory the kselftest way (README, "Running one test"): lib.mk's
# run_tests and its runner over one harness program, with this run's
# results kept apart; then the exit status quic_lib.sh gives a suite
# whose result passed, failed or was skipped (0, 1, 4: kselftest's).
if want runner; then
	rt=$(mktemp -d)
	rt_out=$(RESULTS=$rt/results OUT=$rt make -s -C "$dir" run_tests \
		TEST_GEN_PROGS=udp TEST_PROGS= TEST_GEN_FILES= 2>&1)
	rt_rc=$?
	sed 's/^/# run_tests: /' <<<"$rt_out"
	if [ "$rt_rc" = 0 ] && grep -q '^ok 1 selftests: .*: udp$' <<<"$rt_out"; then
		result ok runner "make run_tests runs a harness program and reports it"
	else
		result "not ok" runner "make run_tests runs a harness program and reports it"
	fi
	for v in ok "not ok" skip; do
		case "$v" in
		ok) expect=0 ;;
		skip) expect=4 ;;
		*) expect=1 ;;
		esac
		RESULTS=$rt/lib OUT=$rt bash -c '. "$1/quic_lib.sh"; suite=lib
			quic_init; result "$2" lib one; quic_exit' _ "$dir" "$v" \
			>/dev/null 2>&1
		got=$?
		if [ "$got" = "$expect" ]; then
			result ok runner "a suite whose result is \"$v\" exits $expect"
		else
			result "not ok" runner "a suite whose result is \"$v\" exits $expect (got $got)"
		fi
	done
	rm -rf "$rt"
fi
# No UDP socket or anything else of quic.ko outlives the tests.
if rmmod quic; then
	result ok module "quic unloads after the tests"
else
	result "not ok" module "quic unloads after the tests"
fi
exit 0
