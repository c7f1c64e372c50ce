LIBS_oltp := $(shell mariadb_config --libs) -lcrypto
