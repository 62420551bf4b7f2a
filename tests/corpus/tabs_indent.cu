// Indented with hard tabs throughout (and tabs between tokens).
// Blelloch work-efficient exclusive scan of one block.
#include <cuda_runtime.h>

#define SCAN_N	512

__global__	void	block_exclusive_scan(const int *in, int *out, int n)
{
	__shared__	int	temp[SCAN_N];
	int	tid = threadIdx.x;
	int	offset = 1;

	temp[2 * tid] = (2 * tid < n) ? in[2 * tid] : 0;
	temp[2 * tid + 1] = (2 * tid + 1 < n) ? in[2 * tid + 1] : 0;

	for (int d = SCAN_N >> 1; d > 0; d >>= 1) {
		__syncthreads();
		if (tid < d) {
			int	ai = offset * (2 * tid + 1) - 1;
			int	bi = offset * (2 * tid + 2) - 1;
			temp[bi] += temp[ai];
		}
		offset *= 2;
	}

	if (tid == 0)
		temp[SCAN_N - 1] = 0;

	for (int d = 1; d < SCAN_N; d *= 2) {
		offset >>= 1;
		__syncthreads();
		if (tid < d) {
			int	ai = offset * (2 * tid + 1) - 1;
			int	bi = offset * (2 * tid + 2) - 1;
			int	t = temp[ai];
			temp[ai] = temp[bi];
			temp[bi] += t;
		}
	}
	__syncthreads();

	if (2 * tid < n)	out[2 * tid] = temp[2 * tid];
	if (2 * tid + 1 < n)	out[2 * tid + 1] = temp[2 * tid + 1];
}

void	scan(const int *in, int *out, int n)
{
	block_exclusive_scan<<<1,	SCAN_N / 2>>>(in, out, n);
}
