/* SPDX-License-Identifier: LGPL-2.1 */
/* libquic's public header lives at <netinet/quic.h>; this is an alias. */
#include "netinet/quic.h"
