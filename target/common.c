// SPDX-License-Identifier: GPL-2.0
/*
 * The pure-logic files of common/ are compiled into each module through
 * this file, so that the two modules never share an object file.
 */
#include "../common/scalio_format.c"
#include "../common/scalio_proto.c"
#include "../common/scalio_slot.c"
#include "../common/scalio_batch.c"
#include "../common/scalio_segcache.c"
