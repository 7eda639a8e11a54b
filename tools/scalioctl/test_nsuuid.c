// SPDX-License-Identifier: GPL-2.0
/*
 * test_nsuuid: what nsuuid.c gives, for test.sh (which compares with
 * Python's uuid.uuid5 and the old form).  Built with sanitizers.
 *   test_nsuuid v5 NQN            the version-5 form
 *   test_nsuuid legacy NQN        the form of older versions
 *   test_nsuuid choose NQN v5|legacy [CUR]
 *                                 ns_uuid_choose()
 */
#include <stdio.h>
#include <string.h>

#include "nsuuid.h"

int main(int argc, char **argv)
{
	char out[NS_UUID_LEN];

	if (argc == 3 && !strcmp(argv[1], "v5")) {
		ns_uuid_v5(argv[2], out);
	} else if (argc == 3 && !strcmp(argv[1], "legacy")) {
		ns_uuid_legacy(argv[2], out);
	} else if ((argc == 4 || argc == 5) && !strcmp(argv[1], "choose")) {
		ns_uuid_choose(argv[2], !strcmp(argv[3], "legacy"),
			       argc == 5 ? argv[4] : NULL, out);
	} else {
		fprintf(stderr, "usage: test_nsuuid v5|legacy NQN | choose NQN v5|legacy [CUR]\n");
		return 2;
	}
	puts(out);
	return 0;
}
