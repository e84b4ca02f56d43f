/* Prints 1 if libmyblas finds a usable CUDA GPU, else 0. GPU-labelled tests run it to
 * decide whether to skip: it asks the library itself, so "GPU present" means the same
 * thing to the test as to dispatch (nvidia-smi can succeed where the runtime cannot). */
#include <stdio.h>

#include "myblas.h"

int main(void) {
  printf("%d\n", myblas_gpu_available());
  return 0;
}
