# benchcore module build fragment (installed with the SDK; PGXS style).
# A module's Makefile (sdk/examples/hello/Makefile):
#
#   MODULE = hello
#   SRCS = hello.c
#   include $(or $(shell PKG_CONFIG_PATH='$(PKG_CONFIG_PATH)' pkg-config --variable=modulemk benchcore),$(error ...))
#
# Optional: LIBS (extra link flags), CFLAGS, LDFLAGS, HEADERS (the module's own
# headers; default: the *.h beside the Makefile), BENCH_REGRESS.
# Targets: all, install, clean, check.
# install copies MODULE.so into the moduledir of the benchcore found by pkg-config.
# The module is rebuilt when a source, one of its headers or the SDK's headers
# change (a new benchcore-dev: a new module.h).
#
# make check: `benchcore check-module ./MODULE.so` (every phase, each option at
# its bounds, --events N runs N), then each regression test named in
# BENCH_REGRESS (PGXS's REGRESS): for NAME, regress/NAME.conf is a config
# whose entries are this module and regress/NAME.expect the invariants every
# case must meet, one a line, PATH OP VALUE:
#   status == ok
#   ops.insert.count > 0
#   info.rows == 1000
# check fails (and says which line, which case, what was found) when one does
# not hold. BENCH_CHECK_FLAGS are handed to the first check-module (e.g.
# --defaults-only --time 0.2).
#
# A benchcore installed under a PREFIX that pkg-config does not search: give
# PKG_CONFIG_PATH=PREFIX/lib/pkgconfig in the environment, on make's command
# line, or as a variable in the Makefile before the include. The include
# line above and this fragment both hand the variable to pkg-config
# themselves: make 4.3 does not pass a Makefile's variables (even exported
# ones) to $(shell), so `include $(shell pkg-config ...)` alone would see
# only the environment's. Without benchcore's pkg-config file the build
# stops with that message.

ifndef MODULE
$(error set MODULE = name before including module.mk)
endif
SRCS		?= $(MODULE).c
HEADERS		?= $(wildcard *.h)
BENCH_REGRESS_DIR ?= regress
CFLAGS		?= -O2 -g
PKG_CONFIG	?= pkg-config
BENCHCORE_PKG	:= PKG_CONFIG_PATH="$(PKG_CONFIG_PATH)" $(PKG_CONFIG)
ifneq ($(shell $(BENCHCORE_PKG) --exists benchcore && echo yes),yes)
$(error pkg-config cannot find benchcore (PKG_CONFIG_PATH="$(PKG_CONFIG_PATH)"); set PKG_CONFIG_PATH=PREFIX/lib/pkgconfig of the installed benchcore)
endif
BENCHCORE_CFLAGS := $(shell $(BENCHCORE_PKG) --cflags benchcore)
BENCHCORE_MODULEDIR := $(shell $(BENCHCORE_PKG) --variable=moduledir benchcore)
BENCHCORE_INCLUDEDIR := $(shell $(BENCHCORE_PKG) --variable=includedir benchcore)
BENCHCORE	?= $(or $(shell $(BENCHCORE_PKG) --variable=benchcore benchcore),benchcore)
ifeq ($(BENCHCORE_MODULEDIR),)
$(error benchcore's pkg-config file names no moduledir: reinstall benchcore)
endif

all: $(MODULE).so

# -fvisibility=hidden: the entry symbol defined by BENCH_MODULE() is the only export.
# -D_GNU_SOURCE: the same C library surface as the modules built in benchcore's tree.
$(MODULE).so: $(SRCS) $(HEADERS) $(wildcard $(BENCHCORE_INCLUDEDIR)/benchcore/*.h)
	$(CC) -std=gnu11 -D_GNU_SOURCE -Wall -Wextra $(CFLAGS) -fPIC -fvisibility=hidden $(BENCHCORE_CFLAGS) \
		-shared -Wl,--no-undefined $(LDFLAGS) -o $@ $(SRCS) $(LIBS)

install: $(MODULE).so
	install -d $(DESTDIR)$(BENCHCORE_MODULEDIR)
	install -m 755 $(MODULE).so $(DESTDIR)$(BENCHCORE_MODULEDIR)/$(MODULE).so

check: $(MODULE).so
	$(BENCHCORE) check-module ./$(MODULE).so $(BENCH_CHECK_FLAGS)
	@for t in $(BENCH_REGRESS); do \
		echo "== regression test $$t: $(BENCH_REGRESS_DIR)/$$t.conf, $(BENCH_REGRESS_DIR)/$$t.expect"; \
		$(BENCHCORE) check-module ./$(MODULE).so -c $(BENCH_REGRESS_DIR)/$$t.conf \
			--expect $(BENCH_REGRESS_DIR)/$$t.expect || exit 1; \
	done

clean:
	rm -f $(MODULE).so

.PHONY: all install clean check
