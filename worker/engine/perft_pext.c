/* The perft kernel with BMI2 PEXT sliders: compiled with -mbmi2 and
 * PLY_KERNEL_PEXT (worker/engine/CMakeLists.txt), run only when the CPU has a fast
 * PEXT (ply_attacks_use_pext). */
#if !defined(PLY_KERNEL_PEXT)
#error "perft_pext.c must be compiled with PLY_KERNEL_PEXT and -mbmi2"
#endif
#include "perft_kernel.h"

const ply__perft_kernel_t ply__perft_kernel_pext = PLY__PERFT_KERNEL(pext);
