// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

static const char *arg_config_dir;
static int arg_check_config;

static void usage(FILE *f)
{
	fprintf(f, "Usage: coreschedd [options]\n"
		   "  -c, --config-dir DIR   read DIR/coreschedd.conf and DIR/rules.d/ only\n"
		   "  -n, --check-config     parse the configuration, print it normalized, exit\n"
		   "  -h, --help             show this help\n"
		   "  -V, --version          show the version\n");
}

static int parse_argv(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config-dir", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:nhV", opts, NULL)) >= 0)
		switch (c) {
		case 'c': arg_config_dir = optarg; break;
		case 'n': arg_check_config = 1; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("coreschedd %s\n", VERSION); exit(0);
		default: usage(stderr); return -EINVAL;
		}
	return 0;
}

static int load_config(struct conf **ret)
{
	static const char *const default_dirs[] = {
		SYSCONFDIR "/coresched/rules.d", RUNSTATEDIR "/coresched/rules.d",
		VENDORDIR "/rules.d", NULL
	};
	char main_file[4096], dropin[4096];
	const char *dirs[] = { dropin, NULL };
	struct conf_paths paths = { SYSCONFDIR "/coresched/coreschedd.conf", default_dirs };
	char *error = NULL;
	int r;

	if (arg_config_dir) {
		snprintf(main_file, sizeof(main_file), "%s/coreschedd.conf", arg_config_dir);
		snprintf(dropin, sizeof(dropin), "%s/rules.d", arg_config_dir);
		paths.main_file = main_file;
		paths.dropin_dirs = dirs;
	}
	r = conf_load(&paths, ret, &error);
	if (r < 0) {
		fprintf(stderr, "%s\n", error ? error : strerror(-r));
		free(error);
	}
	return r;
}

int main(int argc, char **argv)
{
	struct conf *conf = NULL;

	if (parse_argv(argc, argv) < 0)
		return 2;
	if (load_config(&conf) < 0)
		return 1;
	if (arg_check_config) {
		conf_print(conf, stdout);
		conf_free(conf);
		return 0;
	}
	conf_free(conf);
	return 0;
}
