# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers without side effects, for every script here: the shell suites
# (through quic_lib.sh), demo.sh ("make run") and the benchmarks. Sourcing
# it only defines functions: no traps, no exit codes, no variables.
#
#   quic_wait_port u|t PORT	wait until something listens on UDP (u) or
#				TCP (t) PORT; 1 after 10 s
#   quic_wait_udp PORT		quic_wait_port u PORT

quic_wait_port() {
	local _

	for _ in $(seq 100); do
		ss -H"$1"lna "sport = :$2" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

quic_wait_udp() {
	quic_wait_port u "$1"
}
