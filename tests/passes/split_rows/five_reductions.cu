// Per-row statistics in five sweeps (sum, then max, min, the squared and the absolute deviation
// from the mean): split_rows combines at most four reductions in sequence.
#define COLS 8192

__global__ void row_stats(const float *x, float *stats, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < COLS; j++) s += x[r * COLS + j];
    float hi = -INFINITY;
    for (int j = 0; j < COLS; j++) hi = fmaxf(hi, x[r * COLS + j]);
    float lo = INFINITY;
    for (int j = 0; j < COLS; j++) lo = fminf(lo, x[r * COLS + j]);
    float mean = s / COLS;
    float sq = 0.0f;
    for (int j = 0; j < COLS; j++) sq += (x[r * COLS + j] - mean) * (x[r * COLS + j] - mean);
    float ad = 0.0f;
    for (int j = 0; j < COLS; j++) ad += fabsf(x[r * COLS + j] - mean);
    stats[r * 4 + 0] = hi - lo;
    stats[r * 4 + 1] = sq / COLS;
    stats[r * 4 + 2] = ad / COLS;
    stats[r * 4 + 3] = mean;
  }
}
