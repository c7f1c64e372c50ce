# MARIADB_LIBS: a cross build gives the target's (mariadb_config names the build machine's dirs)
MARIADB_LIBS ?= $(shell mariadb_config --libs)
LIBS_oltp := $(MARIADB_LIBS) -lcrypto
