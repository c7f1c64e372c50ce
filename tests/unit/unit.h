/* Common includes for cmocka unit tests (cmocka needs these before its header). */
#ifndef BC_TEST_UNIT_H
#define BC_TEST_UNIT_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#endif
