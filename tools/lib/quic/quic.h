/* SPDX-License-Identifier: GPL-2.0 */
/* libquic's public header lives at <netinet/quic.h>; this is an alias. */
#include "netinet/quic.h"
