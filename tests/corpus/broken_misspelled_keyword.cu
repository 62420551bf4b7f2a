// expect-error: 9
// Broken on purpose: the keyword `for` is misspelled as `fro`, which turns
// the loop header into a malformed call expression.
#include <cuda_runtime.h>

__global__ void prefix_sum_naive(const int *in, int *out, int n)
{
    int acc = 0;
    fro (int i = 0; i < n; ++i) {
        acc += in[i];
        out[i] = acc;
    }
}

void launch(const int *in, int *out, int n)
{
    prefix_sum_naive<<<1, 1>>>(in, out, n);
}
