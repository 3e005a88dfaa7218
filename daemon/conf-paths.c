// SPDX-License-Identifier: GPL-2.0-or-later
/* Where coreschedd's configuration lives: the daemon, and coresched-runtime
 * for [Container] Lock=, read it the same way. */
#include <stdio.h>

#include "conf.h"

int conf_load_dir(const char *dir, struct conf **ret, char **ret_error)
{
	static const char *const default_dirs[] = {
		SYSCONFDIR "/coresched/rules.d", RUNSTATEDIR "/coresched/rules.d",
		VENDORDIR "/rules.d", NULL
	};
	char main_file[4096], dropin[4096];
	const char *dirs[] = { dropin, NULL };
	struct conf_paths paths = { SYSCONFDIR "/coresched/coreschedd.conf", default_dirs };

	if (dir) {
		snprintf(main_file, sizeof(main_file), "%s/coreschedd.conf", dir);
		snprintf(dropin, sizeof(dropin), "%s/rules.d", dir);
		paths.main_file = main_file;
		paths.dropin_dirs = dirs;
	}
	return conf_load(&paths, ret, ret_error);
}
