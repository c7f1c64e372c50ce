LIBS_io := -laio
