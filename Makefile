# SPDX-License-Identifier: GPL-2.0
#
# scalio: top-level build.
#
#   make                 modules (against KDIR) + user-space tools
#   make KDIR=<tree>     modules against any kernel tree
#   make KVER=6.12       modules against the newest installed 6.12.* headers
#   make deps            install build/test dependencies (apt-get, idempotent)
#   make check           THE test command: unit tests, builds, VM suite
#   make check-debug     the VM suite on a KASAN/lockdep/kmemleak/UBSAN 6.1
#                        kernel built here (slow: see Documentation/testing.rst;
#                        RESUME=1 skips tests passed on this same clean tree,
#                        recorded in tests/vm/debug-lane.passed; FIRST="40-x
#                        45-y" runs those suite tests first)
#   make check-crash     the long crash-point sweep: 21-crashpoints at
#                        CRASH_STATES=240 replayed states, CRASH_MARKS=40
#                        marks, CRASH_CLEANS=3 cleaner runs at least
#                        (Documentation/testing.rst)
#   make coccicheck      the kernel's coccinelle reports over the modules
#   make demo            boot the test bed and run a short YCSB mix
#   make bench           the benchmark of Documentation/benchmarks.rst
#   make bench-wa        write amplification, on-SSD format 2 (V2=53170e9)
#                        against this tree's format 3, in one boot
#                        (bench/wa.sh; not part of make check)
#   make bench-buckets   DRAM per key against write amplification, GET misses
#                        and throughput, per cache blocks x key buckets
#                        geometry, in one boot (bench/buckets.sh; BK_GEOMS
#                        BK_SIZES BK_KEYS BK_UPDATES BK_GETS from the env)
#   make bench-vsep      key-value separation: write amplification, SSD reads
#                        and GET-miss latency per value size and
#                        value_inline_max, in one boot (bench/vsep.sh;
#                        QUICK=1: under 2 minutes; VS_* from the env)
#   make bench-fill      a store filled to ENOSPC on a small SSD (bench/fill.sh;
#                        BASE=REV: REV's modules fill first, for comparison)
#   make soak            hours: 2 hosts, YCSB at depth, crashes, detaches,
#                        partitions (DURATION=seconds, default 7200;
#                        tests/soak/soak.sh, Documentation/testing.rst)
#   make man-check       man pages render without warnings and match the code
#   make dkms-deb        Debian packages in build/deb (debian/, packaging/mkdeb.sh)
#   make install         tools, man pages, systemd units (DESTDIR=...)
#
# With no KDIR and no KVER the newest /lib/modules/*/build is used.

KVER ?=
ifeq ($(KVER),)
KDIR ?= $(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1)
else
KDIR ?= $(shell ls -d /lib/modules/$(KVER).*/build 2>/dev/null | sort -V | tail -n 1)
endif

# make check / demo / bench boot this kernel series in the VMs.
CHECK_KVER ?= $(if $(KVER),$(KVER),6.1)

MAKEFLAGS += --no-print-directory

.PHONY: all modules tools unit clean deps check check-debug check-crash coccicheck \
	demo bench bench-wa bench-buckets bench-vsep bench-fill checkpatch sparse help man-check dkms-deb install soak

all: modules tools

modules:
	@if [ -z "$(KDIR)" ] || [ ! -d "$(KDIR)" ]; then \
		echo "no kernel headers found (KDIR='$(KDIR)'): run 'make deps' or pass KDIR=<tree>" >&2; \
		exit 1; fi
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

tools:
	$(MAKE) -C tools

unit:
	$(MAKE) -C tests/unit run

# Prebuilt-module packages for these kernels (default: every one with headers).
DEB_KERNELS ?= $(notdir $(patsubst %/build,%,$(wildcard /lib/modules/*/build)))

dkms-deb: tools
	packaging/mkdeb.sh --kernels "$(DEB_KERNELS)" build/deb

# What scalio-tools installs, for installing without packages (the modules:
# dkms add/install from /usr/src, see Documentation/admin-guide.rst).
MULTIARCH ?= $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo $$(uname -m)-linux-gnu)

install: tools
	install -D -m 755 tools/scalioctl/scalioctl $(DESTDIR)/usr/sbin/scalioctl
	install -D -m 644 tools/scalioctl/scalioctl.bash \
		$(DESTDIR)/usr/share/bash-completion/completions/scalioctl
	install -D -m 755 tools/ycsb/scalio-ycsb $(DESTDIR)/usr/bin/scalio-ycsb
	if [ -f tools/fio/scalio-fio.so ]; then install -D -m 644 tools/fio/scalio-fio.so \
		$(DESTDIR)/usr/lib/$(MULTIARCH)/fio/scalio-fio.so; fi
	$(MAKE) -C man install DESTDIR=$(DESTDIR)
	install -d $(DESTDIR)/lib/systemd/system $(DESTDIR)/etc/scalio
	install -m 644 systemd/*.service systemd/*.timer $(DESTDIR)/lib/systemd/system/

man-check:
	$(MAKE) -C man test

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=1 modules

coccicheck:
	scripts/coccicheck.sh

checkpatch:
	scripts/checkpatch.sh

deps:
	scripts/install-deps.sh

check:
	@scripts/need-deps.sh || scripts/install-deps.sh
	tests/check.sh --kver $(CHECK_KVER)

check-debug:
	@scripts/need-deps.sh || scripts/install-deps.sh
	tests/check.sh --kver 6.1-debug $(if $(RESUME),--resume) $(if $(FIRST),--first "$(FIRST)")

CRASH_STATES ?= 240
CRASH_CLEANS ?= 3
CRASH_MARKS ?= 40

check-crash:
	@scripts/need-deps.sh || scripts/install-deps.sh
	CRASH_STATES=$(CRASH_STATES) CRASH_CLEANS=$(CRASH_CLEANS) \
		CRASH_MARKS=$(CRASH_MARKS) tests/vm/suite/21-crashpoints.sh --kver $(CHECK_KVER)

demo:
	@scripts/need-deps.sh || scripts/install-deps.sh
	tests/demo.sh --kver $(CHECK_KVER)

bench:
	@scripts/need-deps.sh || scripts/install-deps.sh
	bench/run.sh --kver $(CHECK_KVER)

bench-wa:
	@scripts/need-deps.sh || scripts/install-deps.sh
	bench/wa.sh --kver $(CHECK_KVER)$(if $(V2), --v2 $(V2))

# Cache blocks decoupled from key buckets: what it buys and costs
# (bench/buckets.sh).
bench-buckets:
	@scripts/need-deps.sh || scripts/install-deps.sh
	bench/buckets.sh --kver $(CHECK_KVER)

# Key-value separation: what each value_inline_max costs per value size
# (bench/vsep.sh).
bench-vsep:
	@scripts/need-deps.sh || scripts/install-deps.sh
	bench/vsep.sh --kver $(CHECK_KVER)$(if $(QUICK), --quick)

# How full a store gets before ENOSPC, on a small SSD (bench/fill.sh).
bench-fill:
	@scripts/need-deps.sh || scripts/install-deps.sh
	bench/fill.sh --kver $(CHECK_KVER)$(if $(BASE), --base $(BASE))

soak:
	@scripts/need-deps.sh || scripts/install-deps.sh
	tests/soak/soak.sh --kver $(CHECK_KVER) $(if $(DURATION),--duration $(DURATION))

clean:
	-[ -n "$(KDIR)" ] && [ -d "$(KDIR)" ] && $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tools clean
	$(MAKE) -C tests/unit clean
	rm -rf build

help:
	@sed -n '3,42p' Makefile
