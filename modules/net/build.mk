LIBS_net := -lcrypto -ljansson
