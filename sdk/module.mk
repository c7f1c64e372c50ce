# benchcore module build fragment (installed with the SDK; PGXS style).
# A module's Makefile (sdk/examples/hello/Makefile):
#
#   MODULE = hello
#   SRCS = hello.c
#   include $(or $(shell PKG_CONFIG_PATH='$(PKG_CONFIG_PATH)' pkg-config --variable=modulemk benchcore),$(error ...))
#
# Optional: LIBS (extra link flags), CFLAGS, LDFLAGS. Targets: all, install, clean.
# install copies MODULE.so into the moduledir of the benchcore found by pkg-config.
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
CFLAGS		?= -O2 -g
PKG_CONFIG	?= pkg-config
BENCHCORE_PKG	:= PKG_CONFIG_PATH="$(PKG_CONFIG_PATH)" $(PKG_CONFIG)
ifneq ($(shell $(BENCHCORE_PKG) --exists benchcore && echo yes),yes)
$(error pkg-config cannot find benchcore (PKG_CONFIG_PATH="$(PKG_CONFIG_PATH)"); set PKG_CONFIG_PATH=PREFIX/lib/pkgconfig of the installed benchcore)
endif
BENCHCORE_CFLAGS := $(shell $(BENCHCORE_PKG) --cflags benchcore)
BENCHCORE_MODULEDIR := $(shell $(BENCHCORE_PKG) --variable=moduledir benchcore)
ifeq ($(BENCHCORE_MODULEDIR),)
$(error benchcore's pkg-config file names no moduledir: reinstall benchcore)
endif

all: $(MODULE).so

# -fvisibility=hidden: the entry symbol defined by BENCH_MODULE() is the only export.
# -D_GNU_SOURCE: the same C library surface as the modules built in benchcore's tree.
$(MODULE).so: $(SRCS)
	$(CC) -std=gnu11 -D_GNU_SOURCE -Wall -Wextra $(CFLAGS) -fPIC -fvisibility=hidden $(BENCHCORE_CFLAGS) \
		-shared -Wl,--no-undefined $(LDFLAGS) -o $@ $(SRCS) $(LIBS)

install: $(MODULE).so
	install -d $(DESTDIR)$(BENCHCORE_MODULEDIR)
	install -m 755 $(MODULE).so $(DESTDIR)$(BENCHCORE_MODULEDIR)/$(MODULE).so

clean:
	rm -f $(MODULE).so

.PHONY: all install clean
