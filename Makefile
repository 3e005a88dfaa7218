# coresched — plain GNU Makefile.
# The version has one source: the top entry of debian/changelog (its
# upstream part, before the Debian revision).
VERSION     := $(shell sed -n '1s/^[^ ]* .\([^ ]*\)-[^- ]*. .*/\1/p' debian/changelog 2>/dev/null)
VERSION     := $(or $(VERSION),unknown)
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
SBINDIR     ?= $(PREFIX)/sbin
LIBEXECDIR  ?= $(PREFIX)/libexec
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
SYSCONFDIR  ?= /etc
RUNSTATEDIR ?= /run
VENDORDIR   ?= /usr/lib/coresched
PKG_CONFIG  ?= pkg-config
SYSTEMDUNITDIR ?= $(shell $(PKG_CONFIG) --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
TMPFILESDIR ?= $(shell $(PKG_CONFIG) --variable=tmpfilesdir systemd 2>/dev/null || echo /usr/lib/tmpfiles.d)
MULTIARCH   ?= $(shell $(CC) -print-multiarch 2>/dev/null)
# PAM loads modules from its own directory only, whatever PREFIX says.
PAMDIR      ?= /lib/$(MULTIARCH)/security
PAMCONFIGDIR ?= /usr/share/pam-configs
BASHCOMPDIR ?= $(shell $(PKG_CONFIG) --variable=completionsdir bash-completion 2>/dev/null || echo $(DATADIR)/bash-completion/completions)

# The full command line, which the libc-only front end $(BINDIR)/coresched
# executes for everything but the direct functions; also found relative to
# the front end, so that an unpacked package or a DESTDIR works.
CLI_FULL    := $(LIBEXECDIR)/coresched/coresched-cli
CLI_FULL_REL := $(shell realpath -m --relative-to='$(BINDIR)' '$(CLI_FULL)')

CC      ?= cc
PKGS    := inih json-c smartcols libsystemd libseccomp libcgroup
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS)) -lpthread -lm

WARN    := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes
HARDEN  := -fstack-protector-strong -D_FORTIFY_SOURCE=2
CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=gnu11 $(WARN) $(HARDEN) $(CPPFLAGS) $(CFLAGS) -Iinclude -Idaemon $(PKG_CFLAGS) \
	-DVERSION=\"$(VERSION)\" -DSYSCONFDIR=\"$(SYSCONFDIR)\" -DRUNSTATEDIR=\"$(RUNSTATEDIR)\" \
	-DVENDORDIR=\"$(VENDORDIR)\" -DLIBEXECDIR=\"$(LIBEXECDIR)\" -MMD -MP \
	-DCLI_FULL_PATH=\"$(CLI_FULL)\" -DCLI_FULL_REL=\"$(CLI_FULL_REL)\"
ALL_LDFLAGS = -Wl,-z,relro,-z,now $(LDFLAGS)

ifneq ($(WERROR)$(CI),)
ALL_CFLAGS += -Werror
endif
ifeq ($(SANITIZE),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -U_FORTIFY_SOURCE
ALL_LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(FAULT),1)
ALL_CFLAGS += -DCORESCHED_FAULT_INJECTION
endif

B := build
LIB_SRCS    := $(wildcard lib/*.c)
DAEMON_SRCS := $(filter-out daemon/main.c,$(wildcard daemon/*.c))
CLI_SRCS    := $(filter-out cli/handoff.c,$(wildcard cli/*.c))
# The front end: the direct functions, built again with CLI_FRONTEND.
FRONT_SRCS  := cli/coresched.c cli/direct.c cli/handoff.c
RUNTIME_SRCS := $(wildcard runtime/*.c)
UNIT_SRCS   := $(wildcard tests/unit/test-*.c)
HELPER_SRCS := $(wildcard tests/helpers/*.c)

LIB_OBJS    := $(LIB_SRCS:%.c=$(B)/%.o)
DAEMON_OBJS := $(DAEMON_SRCS:%.c=$(B)/%.o)
CLI_OBJS    := $(CLI_SRCS:%.c=$(B)/%.o)
FRONT_OBJS  := $(FRONT_SRCS:%.c=$(B)/front/%.o)
RUNTIME_OBJS := $(RUNTIME_SRCS:%.c=$(B)/%.o)
UNIT_BINS   := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)
HELPER_BINS := $(HELPER_SRCS:tests/helpers/%.c=$(B)/helpers/%)

PROGS := $(B)/coresched $(B)/coresched-cli $(B)/coreschedd $(B)/coresched-runtime $(B)/pam_coresched.so
PAM_SRCS := $(wildcard pam/*.c)

.PRECIOUS: $(B)/%.o
.PHONY: all progs check check-host check-vm bench bench-plot fuzz fault clean install uninstall deps demo deb
all: $(PROGS) $(HELPER_BINS) fault
progs: $(PROGS)

# A second daemon whose kernel-facing wrappers fail on demand
# (CORESCHED_FAULT=site:errno[:count],...), for the fault-injection test
# only; it is never installed.
fault:
	$(MAKE) --no-print-directory B=$(B)/fault FAULT=1 $(B)/fault/coreschedd

# Objects remember the flags they were built with: switching SANITIZE= or
# CFLAGS= rebuilds everything instead of mixing old and new objects.
FLAGS_STAMP := $(B)/.flags-$(shell echo '$(CC) $(filter-out -Werror,$(ALL_CFLAGS)) $(ALL_LDFLAGS)' | sha1sum | cut -c1-12)
$(FLAGS_STAMP):
	@mkdir -p $(B)
	@rm -f $(B)/.flags-*
	@touch $@

$(B)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(B)/libcommon.a: $(LIB_OBJS)
	$(AR) rcs $@ $^
$(B)/libdaemon.a: $(DAEMON_OBJS)
	$(AR) rcs $@ $^

$(B)/coreschedd: $(B)/daemon/main.o $(B)/libdaemon.a $(B)/libcommon.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.c %.o %.a,$^) $(PKG_LIBS)
$(B)/coresched-cli: $(CLI_OBJS) $(B)/libcommon.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.c %.o %.a,$^) $(PKG_LIBS)
# libc only: no $(PKG_LIBS) (tests/host/frontend.sh holds it to that).
$(B)/front/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DCLI_FRONTEND -c $< -o $@
$(B)/coresched: $(FRONT_OBJS) $(B)/lib/sched_core.o
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.c %.o %.a,$^)
# The runtime wrapper reads coreschedd's configuration ([Container] Lock=)
# with the daemon's own parser.
$(B)/coresched-runtime: $(RUNTIME_OBJS) $(B)/libdaemon.a $(B)/libcommon.a
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.c %.o %.a,$^) $(PKG_LIBS)
# The PAM module runs inside sshd, login, su and systemd: position
# independent, libc and libpam only, and never sanitized (an ASan module
# cannot load into a process without the ASan runtime).
PAM_CFLAGS = -fPIC -fvisibility=hidden $(filter-out -fsanitize=% -fno-omit-frame-pointer -U_FORTIFY_SOURCE,$(ALL_CFLAGS))
$(B)/pam/%.o: pam/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(PAM_CFLAGS) -c $< -o $@
$(B)/pam_coresched.so: $(PAM_SRCS:%.c=$(B)/%.o)
	$(CC) -shared -Wl,-z,relro,-z,now -Wl,--no-undefined -Wl,-soname,pam_coresched.so $(LDFLAGS) -o $@ $^ -lpam
$(B)/helpers/pam-drive: PKG_LIBS += -lpam
# The benchmark's minimal launcher: libc only, like util-linux's coresched.
$(B)/helpers/cs-launch: PKG_LIBS :=
# The floor keeps its windows in the daemon's histogram (daemon/window.c).
$(B)/helpers/cs-floor: $(B)/libdaemon.a
# The start-up benchmark's bare /proc walk: libc only too.
$(B)/helpers/cs-walk: PKG_LIBS :=

$(B)/tests/%: $(B)/tests/unit/%.o $(B)/libdaemon.a $(B)/libcommon.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.c %.o %.a,$^) $(PKG_LIBS)
$(B)/helpers/%: tests/helpers/%.c $(B)/libcommon.a $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.c %.o %.a,$^) $(PKG_LIBS)

$(B)/bench/%: tests/bench/%.c $(B)/libdaemon.a $(B)/libcommon.a $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.c %.o %.a,$^) $(PKG_LIBS)

# Host unit and black-box tests, then the VM suite; one closing line.
check: all $(UNIT_BINS)
	SANITIZE=$(SANITIZE) tests/run-checks
check-host: all $(UNIT_BINS)
	SANITIZE=$(SANITIZE) CORESCHED_NO_VM=1 tests/run-checks
check-vm: all
	tests/vm/run

bench: all $(B)/bench/bench-match $(B)/bench/bench-event $(B)/bench/bench-proc
	tests/bench/collect

# The pictures again, from the samples the last `make bench` left.
bench-plot:
	tests/bench/plot $(B)/bench/data

demo: all
	tests/vm/run --demo

fuzz:
	tests/fuzz/run $(or $(FUZZ_SECONDS),60)

deps:
	scripts/install-deps

# The unit and the hook name the programs where this install puts them.
INSTALL_PATHS = sed -e 's|/usr/sbin/coreschedd|$(SBINDIR)/coreschedd|g' -e 's|/usr/bin/coresched|$(BINDIR)/coresched|g'

install: $(PROGS)
	install -Dm755 $(B)/coresched $(DESTDIR)$(BINDIR)/coresched
	install -Dm755 $(B)/coresched-cli $(DESTDIR)$(CLI_FULL)
	install -Dm755 $(B)/coreschedd $(DESTDIR)$(SBINDIR)/coreschedd
	install -Dm755 $(B)/coresched-runtime $(DESTDIR)$(BINDIR)/coresched-runtime
	install -Dm644 conf/coreschedd.conf $(DESTDIR)$(SYSCONFDIR)/coresched/coreschedd.conf
	install -Dm644 conf/runtime.conf $(DESTDIR)$(SYSCONFDIR)/coresched/runtime.conf
	install -d $(DESTDIR)$(SYSCONFDIR)/coresched/rules.d
	install -d $(DESTDIR)$(VENDORDIR)/rules.d
	for f in conf/rules.d/*.conf; do [ -e "$$f" ] && install -m644 "$$f" $(DESTDIR)$(VENDORDIR)/rules.d/; done; true
	$(INSTALL_PATHS) systemd/coreschedd.service > $(B)/coreschedd.service
	install -Dm644 $(B)/coreschedd.service $(DESTDIR)$(SYSTEMDUNITDIR)/coreschedd.service
	install -Dm644 systemd/coreschedd.socket $(DESTDIR)$(SYSTEMDUNITDIR)/coreschedd.socket
	install -Dm644 systemd/coresched.tmpfiles $(DESTDIR)$(TMPFILESDIR)/coresched.conf
	$(INSTALL_PATHS) conf/hooks.d/coresched.json > $(B)/coresched.json
	install -Dm644 $(B)/coresched.json $(DESTDIR)$(DATADIR)/containers/oci/hooks.d/coresched.json
	install -Dm644 docs/coresched.1 $(DESTDIR)$(MANDIR)/man1/coresched.1
	install -Dm644 docs/coreschedd.conf.5 $(DESTDIR)$(MANDIR)/man5/coreschedd.conf.5
	install -Dm644 docs/coreschedd.8 $(DESTDIR)$(MANDIR)/man8/coreschedd.8
	install -Dm644 docs/coresched-runtime.8 $(DESTDIR)$(MANDIR)/man8/coresched-runtime.8
	install -Dm644 scripts/coresched.bash-completion $(DESTDIR)$(BASHCOMPDIR)/coresched
	install -Dm644 $(B)/pam_coresched.so $(DESTDIR)$(PAMDIR)/pam_coresched.so
	install -Dm644 conf/pam-configs/coresched $(DESTDIR)$(PAMCONFIGDIR)/coresched
	install -Dm644 docs/pam_coresched.8 $(DESTDIR)$(MANDIR)/man8/pam_coresched.8

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/coresched $(DESTDIR)$(CLI_FULL) $(DESTDIR)$(SBINDIR)/coreschedd $(DESTDIR)$(BINDIR)/coresched-runtime \
	      $(DESTDIR)$(SYSTEMDUNITDIR)/coreschedd.service $(DESTDIR)$(SYSTEMDUNITDIR)/coreschedd.socket \
	      $(DESTDIR)$(DATADIR)/containers/oci/hooks.d/coresched.json \
	      $(DESTDIR)$(MANDIR)/man1/coresched.1 $(DESTDIR)$(MANDIR)/man5/coreschedd.conf.5 $(DESTDIR)$(MANDIR)/man8/coreschedd.8 \
	      $(DESTDIR)$(MANDIR)/man8/coresched-runtime.8 \
	      $(DESTDIR)$(BASHCOMPDIR)/coresched $(DESTDIR)$(TMPFILESDIR)/coresched.conf \
	      $(DESTDIR)$(PAMDIR)/pam_coresched.so $(DESTDIR)$(PAMCONFIGDIR)/coresched $(DESTDIR)$(MANDIR)/man8/pam_coresched.8
	rm -rf $(DESTDIR)$(VENDORDIR)
	rmdir $(DESTDIR)$(LIBEXECDIR)/coresched 2>/dev/null || true

# The Debian package, built by dpkg-buildpackage from a copy of the tree
# (so the build here is left alone), into $(B)/deb/; rebuilt only when a
# shipped file changed. DEB_VERSION= builds the same tree as another version.
DEB_INPUTS := Makefile $(shell find cli conf daemon debian docs include lib pam runtime scripts systemd -type f 2>/dev/null)
deb: $(B)/deb/.built$(if $(DEB_VERSION),-$(DEB_VERSION))
$(B)/deb/.built: $(DEB_INPUTS)
	scripts/build-deb $(B)/deb
	@touch $@
$(B)/deb/.built-%: $(DEB_INPUTS)
	scripts/build-deb --version $* $(B)/deb/$*
	@touch $@

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
