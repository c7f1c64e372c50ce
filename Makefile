# benchcore: build, install, check.
#
#   make                  build build/benchcore and build/modules/*.so
#   make check            what proves correctness, in minutes: the unit tests (plain and
#                         ASan+UBSan) and the quick forms of the integration tests;
#                         ends with "N passed, N failed" (tests/README.md)
#   make check-full       the long and statistical rest: the integration tests' full forms
#                         and timing checks, the package and fleet builds, the integration
#                         tests under ASan+UBSan, every unit test under valgrind, longer fuzzing
#   make install PREFIX=/usr/local DESTDIR=   install binary, modules, SDK, pkg-config file,
#                         docs (DATADIR/doc/benchcore: sdk.md and docs/*.md)
#   make uninstall
#   make man              build/man/benchcore.1, benchcore.conf.5 and build/completion/benchcore
#                         (generated from the flag, settings and options tables: scripts/gen-man.py)
#
# Every folder under modules/ is a module: its *.c files become modules/NAME.so.
# A module's extra link flags go in modules/NAME/build.mk as  LIBS_NAME := -lfoo
# Helpers the modules share are SDK headers (sdk/include/benchcore/*.h, installed
# with module.h), so a third party gets them too.

VERSION		:= 0.1.0
PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
DATADIR		?= $(PREFIX)/share
MODULEDIR	?= $(LIBDIR)/benchcore/modules
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig
MANDIR		?= $(DATADIR)/man
BASHCOMPDIR	?= $(DATADIR)/bash-completion/completions
DESTDIR		?=

CC		?= cc
BUILD		?= build
SAN		?=
OPT		?= -O2
WARN		:= -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers
CFLAGS		?= $(OPT) -g
ifeq ($(SAN),1)
SANFLAGS	:= -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
endif
# core/ is built in floors (README "Layout"): a group's files see the headers
# of their own group and of the floors below, never above, so an include that
# points up a floor does not build, and no two groups can need each other.
FLOOR_0		:= base
FLOOR_1		:= values stats
FLOOR_2		:= machine module result
FLOOR_3		:= engine archive judge merge
FLOOR_4		:= run history
FLOOR_5		:= views
FLOOR_6		:= pages
FLOOR_7		:= cli
BELOW_0		:=
BELOW_1		:= $(FLOOR_0)
BELOW_2		:= $(BELOW_1) $(FLOOR_1)
BELOW_3		:= $(BELOW_2) $(FLOOR_2)
BELOW_4		:= $(BELOW_3) $(FLOOR_3)
BELOW_5		:= $(BELOW_4) $(FLOOR_4)
BELOW_6		:= $(BELOW_5) $(FLOOR_5)
BELOW_7		:= $(BELOW_6) $(FLOOR_6)
$(foreach f,0 1 2 3 4 5 6 7,$(foreach g,$(FLOOR_$(f)),$(eval SEES_$(g) := $(g) $(BELOW_$(f)))))
CORE_GROUPS	:= $(foreach f,0 1 2 3 4 5 6 7,$(FLOOR_$(f)))
# the results archive: SQLite, and PostgreSQL's libpq (its headers where pg_config says;
# under a cross build's --sysroot, the sysroot's)
PG_INCDIR	:= $(patsubst --sysroot=%,%,$(filter --sysroot=%,$(CC)))$(or $(shell pg_config --includedir 2>/dev/null),$(shell pkg-config --variable=includedir libpq 2>/dev/null),/usr/include/postgresql)
BASECFLAGS	:= -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -D_GNU_SOURCE -pthread \
		   -Isdk/include -I$(PG_INCDIR) -DBC_VERSION='"$(VERSION)"' -DBC_MODULEDIR='"$(MODULEDIR)"'
# unit tests, fuzz targets and test modules see every group
ALLCFLAGS	:= $(BASECFLAGS) $(CORE_GROUPS:%=-Icore/%)
BC_CFLAGS_STR	:= $(CC) -std=gnu11 $(CFLAGS) $(SANFLAGS)
CORE_LIBS	:= -lconfig -ljansson -lsqlite3 -lpq -lcrypto -lz -ldl -lm -pthread
MOD_CFLAGS	:= $(ALLCFLAGS) -fPIC -fvisibility=hidden
MOD_LDFLAGS	:= -shared $(SANFLAGS) -Wl,--no-undefined -Wl,-z,defs

CORE_SRC	:= $(filter-out core/cli/main.c,$(wildcard core/*/*.c))
CORE_OBJ	:= $(CORE_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ	:= $(BUILD)/core/cli/main.o

MODULES		:= $(notdir $(patsubst %/,%,$(dir $(wildcard modules/*/*.c))))
MODULES		:= $(sort $(MODULES))
MODULE_SO	:= $(MODULES:%=$(BUILD)/modules/%.so)
# A module's helper program (modules/NAME/helper/*.c -> build/modules/NAME-helper),
# installed beside the module, which runs it (sys: fork and exec from a small process).
HELPERS		:= $(sort $(patsubst modules/%/helper/,%,$(dir $(wildcard modules/*/helper/*.c))))
HELPER_BIN	:= $(HELPERS:%=$(BUILD)/modules/%-helper)
# Reference sets a module ships (modules/NAME/*.refset.json: compare --index SET),
# beside the modules in the build and the install.
REFSETS		:= $(wildcard modules/*/*.refset.json)
REFSET_OUT	:= $(addprefix $(BUILD)/modules/,$(notdir $(REFSETS)))
-include $(wildcard modules/*/build.mk)

# Deliberately broken modules used by the loader and robustness tests.
TESTMOD_SRC	:= $(wildcard tests/modules/*.c)
TESTMOD_SO	:= $(TESTMOD_SRC:tests/modules/%.c=$(BUILD)/testmods/%.so) $(BUILD)/testmods/old10.so \
		   $(BUILD)/testmods/old12.so $(BUILD)/testmods/scale12.so $(BUILD)/testmods/old13.so

# A stand-in for a private server (tests/integration/test_service.sh).
STANDIN		:= $(BUILD)/testmods/standin_server

UNIT_SRC	:= $(wildcard tests/unit/test_*.c)
UNIT_BIN	:= $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)


.PHONY: all modules testmods unit man check check-full check-fast cross-arm64 install uninstall clean FORCE print-floors
all: $(BUILD)/benchcore modules $(BUILD)/.benchcore-build
modules: $(MODULE_SO) $(HELPER_BIN) $(REFSET_OUT)
testmods: $(TESTMOD_SO) $(STANDIN)
unit: $(UNIT_BIN)

$(BUILD)/.benchcore-build:
	@mkdir -p $(@D) && echo "in-tree build of benchcore $(VERSION)" > $@

# -MMD -MP: each object's header dependencies, tracked in a .d file beside it.
# Its include path: its group and the floors below (SEES_group).
$(BUILD)/core/%.o: core/%.c
	@mkdir -p $(@D)
	$(CC) $(BASECFLAGS) $(SEES_$(firstword $(subst /, ,$*)):%=-Icore/%) -MMD -MP \
		-DBC_BUILD_CFLAGS='"$(BC_CFLAGS_STR)"' -c -o $@ $<

# The floors, for tests/integration/test_floors.sh: "group: the groups it sees".
print-floors:
	@$(foreach g,$(CORE_GROUPS),echo "$(g): $(SEES_$(g))";)
-include $(CORE_OBJ:.o=.d) $(MAIN_OBJ:.o=.d)

$(BUILD)/benchcore: $(MAIN_OBJ) $(CORE_OBJ)
	$(CC) $(SANFLAGS) -o $@ $^ $(CORE_LIBS)

# One rule per module: modules/NAME/*.c -> build/modules/NAME.so, built by
# sdk/module.mk, the fragment third parties use, against an in-tree
# pkg-config file: every build exercises the SDK as a module author sees it.
# -B: this rule already decided the module is out of date (module.mk alone
# would only compare the .so with its .c files, not with the headers).
define module_rule
$(BUILD)/modules/$(1).so: $(wildcard modules/$(1)/*.c) $(wildcard modules/$(1)/*.h) $(wildcard sdk/include/benchcore/*.h) \
		sdk/include/benchcore/module.h sdk/module.mk $(BUILD)/sdk/benchcore.pc
	@mkdir -p $$(@D)
	$$(MAKE) --no-print-directory -B -C $$(@D) -f $(CURDIR)/sdk/module.mk MODULE=$(1) \
		SRCS="$(abspath $(wildcard modules/$(1)/*.c))" CC="$(CC)" \
		CFLAGS="$(WARN) $(CFLAGS) $(SANFLAGS) -pthread" LDFLAGS="$(SANFLAGS) -Wl,-z,defs" \
		LIBS="$$(LIBS_$(1)) -lm -lpthread" PKG_CONFIG_PATH=$(CURDIR)/$(BUILD)/sdk $(1).so
endef
$(foreach m,$(MODULES),$(eval $(call module_rule,$(m))))

define helper_rule
$(BUILD)/modules/$(1)-helper: $(wildcard modules/$(1)/helper/*.c)
	@mkdir -p $$(@D)
	$$(CC) -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -D_GNU_SOURCE -o $$@ $$^
endef
$(foreach h,$(HELPERS),$(eval $(call helper_rule,$(h))))

$(BUILD)/modules/%.refset.json: $(REFSETS)
	@mkdir -p $(@D)
	cp $(filter %/$*.refset.json,$(REFSETS)) $@

$(BUILD)/testmods/%.so: tests/modules/%.c sdk/include/benchcore/module.h
	@mkdir -p $(@D)
	$(CC) $(MOD_CFLAGS) $(MOD_LDFLAGS) -o $@ $< -lpthread

# A module built against the frozen ABI 1.0 header: older minors keep working.
$(BUILD)/testmods/old10.so: tests/abi10/old10.c tests/abi10/benchcore/module.h
	@mkdir -p $(@D)
	$(CC) -Itests/abi10 $(MOD_CFLAGS) $(MOD_LDFLAGS) -o $@ $< -lpthread

# ... and one against the frozen 1.2 header (options[] without offset).
$(BUILD)/testmods/old12.so $(BUILD)/testmods/scale12.so: $(BUILD)/testmods/%.so: tests/abi12/%.c \
		tests/abi12/benchcore/module.h
	@mkdir -p $(@D)
	$(CC) -Itests/abi12 $(MOD_CFLAGS) $(MOD_LDFLAGS) -o $@ $< -lpthread

# ... and one against the frozen 1.3 header, the newest 1.3 one (before 1.4
# gave record_unfinished and warmup_n their minor).
$(BUILD)/testmods/old13.so: tests/abi13/old13.c tests/abi13/benchcore/module.h
	@mkdir -p $(@D)
	$(CC) -Itests/abi13 $(MOD_CFLAGS) $(MOD_LDFLAGS) -o $@ $< -lpthread

$(STANDIN): tests/servers/standin.c
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(CORE_OBJ) tests/unit/unit.h
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -Itests/unit -o $@ $< $(CORE_OBJ) $(CORE_LIBS) -lcmocka

# A 1.3 host's descriptor checks: abi.c built against the frozen 1.3 header
# in place of this build's (tests/unit/test_oldhost.c).
OLDHOST_OBJ	:= $(filter-out $(BUILD)/core/module/abi.o,$(CORE_OBJ)) $(BUILD)/tests/abi13-abi.o
$(BUILD)/tests/abi13-abi.o: core/module/abi.c core/module/abi.h tests/abi13/benchcore/module.h
	@mkdir -p $(@D)
	$(CC) -Itests/abi13 $(ALLCFLAGS) -c -o $@ $<
$(BUILD)/tests/test_oldhost: tests/unit/test_oldhost.c $(OLDHOST_OBJ) tests/unit/unit.h
	@mkdir -p $(@D)
	$(CC) -Itests/abi13 $(ALLCFLAGS) -Itests/unit -o $@ $< $(OLDHOST_OBJ) $(CORE_LIBS) -lcmocka

# Man pages and completion, from the --help and help --markdown of this build
# (its modules included): they cannot list a flag or option the program lacks.
MAN_PAGES	:= $(BUILD)/man/benchcore.1 $(BUILD)/man/benchcore.conf.5 $(BUILD)/man/benchcore-module.7
COMPLETION	:= $(BUILD)/completion/benchcore
man: $(MAN_PAGES) $(COMPLETION)
$(BUILD)/man/benchcore.1: $(BUILD)/benchcore $(MODULE_SO) scripts/gen-man.py
	@mkdir -p $(@D)
	scripts/gen-man.py man1 $(BUILD)/benchcore $(MODULEDIR) > $@.tmp && mv $@.tmp $@
$(BUILD)/man/benchcore.conf.5: $(BUILD)/benchcore $(MODULE_SO) scripts/gen-man.py
	@mkdir -p $(@D)
	scripts/gen-man.py man5 $(BUILD)/benchcore > $@.tmp && mv $@.tmp $@
# the SDK guide as a man page (benchcore-dev's)
$(BUILD)/man/benchcore-module.7: $(BUILD)/benchcore sdk/README.md scripts/gen-man.py
	@mkdir -p $(@D)
	scripts/gen-man.py man7 $(BUILD)/benchcore sdk/README.md > $@.tmp && mv $@.tmp $@
$(COMPLETION): $(BUILD)/benchcore $(MODULE_SO) scripts/gen-man.py
	@mkdir -p $(@D)
	scripts/gen-man.py completion $(BUILD)/benchcore > $@.tmp && mv $@.tmp $@

# make check: everything a change must pass, in minutes; make check-full: the
# long and statistical rest (tests/README.md says which test is where). CI
# runs both. tests/run.sh prints the final tally.
# The builds use every CPU of the machine (nproc) when make was called
# without -j (`make check` is the README's command); a -j given to make
# (-j1 too) is kept. The three trees (plain, ASan+UBSan, the arm64 cross
# build) are built side by side, sharing make's job slots: one tree's
# serial end (its link, a module's own sub-make) no longer leaves a CPU idle.
NPROC		:= $(shell nproc 2>/dev/null || echo 2)
CHECK_J		= $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
ARM64_NONE	= echo "arm64: no cross build (needs $(ARM64_CC), qemu-aarch64 and scripts/arm64-sysroot.sh's sysroot, with libsqlite3-dev and libpq-dev)"
# The fuzz targets (clang libFuzzer, tests/fuzz/run_fuzz.sh) are built here
# too, one job each beside the trees, so test_fuzz spends its time fuzzing
# (each is one clang run over its sources: 20 to 40 s of a CPU).
FUZZ_TARGETS	:= config results loader netctl channel
.PHONY: check-trees check-tree-plain check-tree-asan check-tree-arm64 $(FUZZ_TARGETS:%=check-fuzz-%)
check-trees: check-tree-plain check-tree-asan check-tree-arm64 $(FUZZ_TARGETS:%=check-fuzz-%)
$(FUZZ_TARGETS:%=check-fuzz-%):
	@if command -v clang-14 >/dev/null || command -v clang >/dev/null; then \
		FUZZ_BUILD=$(BUILD)/fuzz tests/fuzz/run_fuzz.sh $(@:check-fuzz-%=%) build; fi
check-tree-plain:
	+$(MAKE) --no-print-directory all testmods unit
check-tree-asan:
	+$(MAKE) --no-print-directory BUILD=build-asan SAN=1 OPT=-O1 all testmods unit
check-tree-arm64:
	+@$(if $(HAVE_ARM64),$(MAKE) --no-print-directory cross-arm64,$(ARM64_NONE))

check:
	+$(MAKE) --no-print-directory $(CHECK_J) check-trees
	tests/run.sh --build $(BUILD) --asan-build build-asan --level check

check-full:
	+$(MAKE) --no-print-directory $(CHECK_J) check-trees
	tests/run.sh --build $(BUILD) --asan-build build-asan --level full

# arm64: a cross build against a sysroot of Debian's arm64 packages
# (scripts/arm64-sysroot.sh lays it out), tested under qemu-aarch64 by
# tests/integration/test_arm64.sh. make check builds it when both are there.
ARM64_SYSROOT	?= /var/cache/benchcore/arm64-sysroot
ARM64_CC	?= aarch64-linux-gnu-gcc
cross-arm64:
	@test -d $(ARM64_SYSROOT)/usr/include || { echo "no arm64 sysroot at $(ARM64_SYSROOT): run scripts/arm64-sysroot.sh"; exit 2; }
	@test -f $(ARM64_SYSROOT)/usr/include/sqlite3.h -a -f $(ARM64_SYSROOT)/usr/include/postgresql/libpq-fe.h || \
		{ echo "the arm64 sysroot at $(ARM64_SYSROOT) lacks the results archive's libraries (libsqlite3-dev, libpq-dev): run scripts/arm64-sysroot.sh again"; exit 2; }
	+$(MAKE) --no-print-directory $(CHECK_J) BUILD=build-arm64 CC="$(ARM64_CC) --sysroot=$(ARM64_SYSROOT)" \
		MARIADB_LIBS=-lmariadb all testmods unit
HAVE_ARM64	= $(shell test -f $(ARM64_SYSROOT)/usr/include/sqlite3.h && test -f $(ARM64_SYSROOT)/usr/include/postgresql/libpq-fe.h && \
		    command -v $(ARM64_CC) >/dev/null && \
		    command -v qemu-aarch64 >/dev/null && echo yes)

# The plain build's tests of make check only (quicker while developing).
check-fast:
	+$(MAKE) --no-print-directory $(CHECK_J) all testmods unit
	tests/run.sh --build $(BUILD) --level check

# the SDK as the in-tree modules see it (headers and module.mk of this tree)
$(BUILD)/sdk/benchcore.pc: sdk/benchcore.pc.in
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(CURDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@INCLUDEDIR@|$(CURDIR)/sdk/include|g' -e 's|@MODULEDIR@|$(CURDIR)/$(BUILD)/modules|g' \
	    -e 's|@DATADIR@/benchcore/module.mk|$(CURDIR)/sdk/module.mk|g' \
	    -e 's|@BINDIR@/benchcore|$(CURDIR)/$(BUILD)/benchcore|g' $< > $@.tmp && mv $@.tmp $@

# regenerated every time: it depends on PREFIX, which make cannot see change.
# Relocatable: paths under PREFIX are written relative to the .pc file's own
# directory (${pcfiledir}), so a tree installed with DESTDIR (a package being
# built, a copy under /opt) builds modules where it lies, as the installed
# binary finds its modules relative to itself.
# A system package (debian/rules: PC_RELOCATABLE=0) writes PREFIX as it is:
# pkg-config --cflags then says -I/usr/include, not the pkgconfig directory's
# ../../include.
PC_RELOCATABLE	?= 1
PC_REL		:= $(patsubst $(PREFIX)/%,%,$(PKGCONFIGDIR))
PC_PREFIX	:= $(if $(filter $(PC_REL),$(PKGCONFIGDIR))$(filter 0,$(PC_RELOCATABLE)),$(PREFIX),$${pcfiledir}/$(subst $(eval) ,/,$(patsubst %,..,$(subst /, ,$(PC_REL)))))
pc_path		= $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
$(BUILD)/benchcore.pc: sdk/benchcore.pc.in FORCE
	sed -e 's|@PREFIX@|$(PC_PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@INCLUDEDIR@|$(call pc_path,$(INCLUDEDIR))|g' -e 's|@MODULEDIR@|$(call pc_path,$(MODULEDIR))|g' \
	    -e 's|@DATADIR@|$(call pc_path,$(DATADIR))|g' -e 's|@BINDIR@|$(call pc_path,$(BINDIR))|g' \
	    $< > $@.tmp && mv $@.tmp $@

# What a module author reads: the SDK's README and the reference pages.
DOCDIR		?= $(DATADIR)/doc/benchcore
DOCS		:= $(wildcard docs/*.md)
SDK_HEADERS	:= $(wildcard sdk/include/benchcore/*.h)

install: all man $(BUILD)/benchcore.pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MODULEDIR) $(DESTDIR)$(INCLUDEDIR)/benchcore \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(DATADIR)/benchcore $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(BASHCOMPDIR)
	install -m 644 $(BUILD)/man/benchcore.1 $(DESTDIR)$(MANDIR)/man1/benchcore.1
	install -m 644 $(BUILD)/man/benchcore.conf.5 $(DESTDIR)$(MANDIR)/man5/benchcore.conf.5
	install -m 644 $(BUILD)/man/benchcore-module.7 $(DESTDIR)$(MANDIR)/man7/benchcore-module.7
	install -m 644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/benchcore
	install -m 755 $(BUILD)/benchcore $(DESTDIR)$(BINDIR)/benchcore
	for so in $(MODULE_SO) $(HELPER_BIN); do install -m 755 $$so $(DESTDIR)$(MODULEDIR)/; done
	for r in $(REFSET_OUT); do install -m 644 $$r $(DESTDIR)$(MODULEDIR)/; done
	install -m 644 $(SDK_HEADERS) $(DESTDIR)$(INCLUDEDIR)/benchcore/
	install -m 644 $(BUILD)/benchcore.pc $(DESTDIR)$(PKGCONFIGDIR)/benchcore.pc
	install -m 644 sdk/module.mk $(DESTDIR)$(DATADIR)/benchcore/module.mk
	# the SDK's examples, each with a Makefile for the installed SDK (rsa and
	# evloop: the model module and the event-loop example, their sources
	# linked from the tree and copied here)
	cd sdk/examples && find -L . -type f ! -name '*.so' | while read -r f; do \
		install -D -m 644 "$$f" "$(DESTDIR)$(DATADIR)/benchcore/examples/$$f" || exit 1; done
	install -m 644 sdk/README.md $(DESTDIR)$(DOCDIR)/sdk.md
	install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/benchcore $(SDK_HEADERS:sdk/include/%=$(DESTDIR)$(INCLUDEDIR)/%) \
	      $(DESTDIR)$(PKGCONFIGDIR)/benchcore.pc $(DESTDIR)$(DATADIR)/benchcore/module.mk \
	      $(DESTDIR)$(DOCDIR)/sdk.md $(DOCS:docs/%=$(DESTDIR)$(DOCDIR)/%)
	rm -rf $(DESTDIR)$(DATADIR)/benchcore/examples
	rm -f $(MODULES:%=$(DESTDIR)$(MODULEDIR)/%.so) $(HELPERS:%=$(DESTDIR)$(MODULEDIR)/%-helper) \
	      $(REFSET_OUT:$(BUILD)/modules/%=$(DESTDIR)$(MODULEDIR)/%)
	rm -f $(DESTDIR)$(MANDIR)/man1/benchcore.1 $(DESTDIR)$(MANDIR)/man5/benchcore.conf.5 \
	      $(DESTDIR)$(MANDIR)/man7/benchcore-module.7 \
	      $(DESTDIR)$(BASHCOMPDIR)/benchcore
	-rmdir $(DESTDIR)$(MODULEDIR) $(DESTDIR)$(LIBDIR)/benchcore \
	       $(DESTDIR)$(INCLUDEDIR)/benchcore $(DESTDIR)$(DATADIR)/benchcore $(DESTDIR)$(DOCDIR) 2>/dev/null

clean:
	rm -rf build build-asan build-arm64
