LIBS_redis := -lhiredis -lssl -lcrypto
