# benchcore module build fragment (installed with the SDK; PGXS style).
# A module's Makefile:
#
#   MODULE = hello
#   SRCS = hello.c
#   include $(shell pkg-config --variable=modulemk benchcore)
#
# Optional: LIBS (extra link flags), CFLAGS. Targets: all, install, clean.
# install copies MODULE.so into the moduledir of the benchcore found by pkg-config.

ifndef MODULE
$(error set MODULE = name before including module.mk)
endif
SRCS		?= $(MODULE).c
CFLAGS		?= -O2 -g
PKG_CONFIG	?= pkg-config
BENCHCORE_CFLAGS := $(shell $(PKG_CONFIG) --cflags benchcore)
BENCHCORE_MODULEDIR := $(shell $(PKG_CONFIG) --variable=moduledir benchcore)

all: $(MODULE).so

# -fvisibility=hidden: the entry symbol defined by BENCH_MODULE() is the only export.
$(MODULE).so: $(SRCS)
	$(CC) -std=gnu11 -Wall -Wextra $(CFLAGS) -fPIC -fvisibility=hidden $(BENCHCORE_CFLAGS) \
		-shared -Wl,--no-undefined -o $@ $(SRCS) $(LIBS)

install: $(MODULE).so
	install -d $(DESTDIR)$(BENCHCORE_MODULEDIR)
	install -m 755 $(MODULE).so $(DESTDIR)$(BENCHCORE_MODULEDIR)/$(MODULE).so

clean:
	rm -f $(MODULE).so

.PHONY: all install clean
