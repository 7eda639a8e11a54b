// SPDX-License-Identifier: GPL-2.0
/*
 * test_dhchap: the NVMe keys dhchap.c derives from a secret, for test.sh
 * (which compares them with Python's hmac and nvme check-dhchap-key).
 * Built with sanitizers.
 *   test_dhchap SECRET            prints the host key, then the controller key
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "scalioctl.h"

int main(int argc, char **argv)
{
	char host[DHCHAP_KEY_LEN], ctrl[DHCHAP_KEY_LEN];

	if (argc != 2) {
		fprintf(stderr, "usage: test_dhchap SECRET\n");
		return 2;
	}
	dhchap_keys((const uint8_t *)argv[1], (uint32_t)strlen(argv[1]), host,
		    ctrl);
	printf("%s\n%s\n", host, ctrl);
	return 0;
}
