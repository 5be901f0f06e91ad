#include "alibi/alibi_impl.cuh"

BARACUDA_ALIBI_ENTRIES(kAlibiF32, float);
