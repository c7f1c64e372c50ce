LIBS_rsa := -lcrypto
