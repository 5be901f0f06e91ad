// The public header also compiles as C++ with every warning an error.
#include "header_c99.c"
