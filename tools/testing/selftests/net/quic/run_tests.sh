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
# QUIC_RUN_ONLY=ktap: the in-kernel tests only.
[ "${QUIC_RUN_ONLY:-}" = ktap ] && exit 0

# socket() must autoload quic.ko through its net-pf-*-proto-261 aliases.
if rmmod quic; then
	result ok module "quic unloads when idle"
else
	result "not ok" module "quic unloads when idle"
fi
run_kselftest "$dir/socket"
run_kselftest "$dir/sockopt"
run_kselftest "$dir/../../../../lib/quic/test_handshake"
run_kselftest "$dir/../../../../lib/quic/test_socket"
if [ -d /sys/module/quic ]; then
	result ok module "socket(IPPROTO_QUIC) autoloads quic"
else
	result "not ok" module "socket(IPPROTO_QUIC) autoloads quic"
fi
run_kselftest "$dir/udp"
run_kselftest "$dir/handshake"
run_kselftest "$dir/hostile"
run_kselftest "$dir/retry"
run_kselftest "$dir/alpn"
run_kselftest "$dir/streams"
run_kselftest "$dir/compat"
run_kselftest "$dir/resume"
run_kselftest "$dir/conn"
run_kselftest "$dir/counters"
run_kselftest "$dir/keyupdate"
# sendfile(), splice() and MSG_ZEROCOPY, with and without loss.
run_kselftest "$dir/zerocopy"
# Listing sockets: QUIC_SOCKOPT_INFO, quic_diag (autoloaded by the first
# sock_diag request for IPPROTO_QUIC), quic-ss, /proc/net/quic/conns.
run_kselftest "$dir/diag"
if [ ! -d /sys/module/quic_diag ] || rmmod quic_diag; then
	result ok module "quic_diag unloads when idle"
else
	result "not ok" module "quic_diag unloads when idle"
fi
# An application built against the installed libquic (check.sh): one
# result per step it prints.
if [ -x "$dir/app/build/quic_echo" ]; then
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
	echo "# $(basename "$1"): $((SECONDS - start)) s"
}
# HTTP/3 with ngtcp2's gtlsserver and gtlsclient (interop.sh).
timed "$dir/interop.sh"
timed "$dir/flood.sh"	# junk, Initials, spoofed Initials, replays at h3server
# Transfers across a router namespace: delay, loss, a smaller MTU.
timed "$dir/paths.sh"
# A client whose port or address changes mid-transfer (path validation).
timed "$dir/migrate.sh"
# ECN: CE marks counted and reacted to, bleached marks detected.
timed "$dir/ecn.sh"
# The quic:* tracepoints of a transfer with loss against its quic_info.
timed "$dir/trace.sh"
# The directory the kselftest way (README, "Running one test"): lib.mk's
# run_tests and its runner over one harness program, with this run's
# results kept apart; then the exit status quic_lib.sh gives a suite
# whose result passed, failed or was skipped (0, 1, 4: kselftest's).
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
	ok) want=0 ;;
	skip) want=4 ;;
	*) want=1 ;;
	esac
	RESULTS=$rt/lib OUT=$rt bash -c '. "$1/quic_lib.sh"; suite=lib
		quic_init; result "$2" lib one; quic_exit' _ "$dir" "$v" \
		>/dev/null 2>&1
	got=$?
	if [ "$got" = "$want" ]; then
		result ok runner "a suite whose result is \"$v\" exits $want"
	else
		result "not ok" runner "a suite whose result is \"$v\" exits $want (got $got)"
	fi
done
rm -rf "$rt"
# No UDP socket or anything else of quic.ko outlives the tests.
if rmmod quic; then
	result ok module "quic unloads after the tests"
else
	result "not ok" module "quic unloads after the tests"
fi
exit 0
