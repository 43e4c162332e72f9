/* The perft kernel with magic-multiplication sliders: runs on any CPU. */
#include "perft_kernel.h"

const ply__perft_kernel_t ply__perft_kernel_magic = PLY__PERFT_KERNEL(magic);
