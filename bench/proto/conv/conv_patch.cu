// bench/proto/conv/conv_patch.cu: an experiment by hand, the kernel and its launcher only (make_candidates.py
// puts the helpers implicit_gemm emits in front): conv2d's tf32 wgmma kernel with the input's k tiles as whole
// image rows loaded 16 bytes at a time, each thread's chunks fixed across tiles and the fragments' k offsets in
// a per-tile table; what implicit_gemm { patch } now emits.
// EXPERIMENT: the x operand staged as whole input rows (the tile's (n, p) rows x the k tile's (c, r)
// pairs), loaded 16 bytes at a time, and the fragments read from the rows at q * stride + s.
constexpr int OFF = 4;   // the column of iw = 0 (>= pad)
__global__ void __launch_bounds__(256, 2) conv2d(int N, int C, int H, int W, int K, int R, int S, int stride, int pad,
                       int P, int Q, const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ b, float *__restrict__ y,
                       int LP, int SLOTS) {
  constexpr int BM = 128, BN = 96, BK = 32;
  constexpr int STAGES = 3;
  constexpr int NT = 256;
  constexpr int WM = 16, WN = 96;
  const kr_fastdiv div = kr_fastdiv_of((P) * (Q));
  const kr_fastdiv div_1 = kr_fastdiv_of(Q);
  const kr_fastdiv div_2 = kr_fastdiv_of(P);
  const kr_fastdiv div_4 = kr_fastdiv_of(S);
  const kr_fastdiv div_5 = kr_fastdiv_of(R);
  const int M = N * P * Q, CRS = C * R * S;
  extern __shared__ __align__(1024) unsigned char smem[];
  const int stage_floats = SLOTS * LP;
  float *patch = reinterpret_cast<float *>(smem);
  const int w_off = ((STAGES * stage_floats * 4) + 1023) / 1024 * 1024;
  float (*w_tile)[BN * BK] = reinterpret_cast<float (*)[BN * BK]>(smem + w_off);
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int r_first = kr_div(m0, div_1);
  const int NR = kr_div(min(m0 + BM, M) - 1, div_1) - r_first + 1;
  const bool vec = (W % 4) == 0;
  const int W4 = vec ? W / 4 : W;
  const kr_fastdiv divw = kr_fastdiv_of(W4);
  // zero the columns outside [OFF, OFF + W) of every slot of every stage, once
  for (int e = tid; e < STAGES * SLOTS * LP; e += NT) {
    const int col = e % LP;
    if (col < OFF || col >= OFF + W) patch[e] = 0.0f;
  }
  const int wm0 = (tid / 32) * WM;
  const int lane = tid % 32, g = lane / 4, t = lane % 4;
  int mp[2];
  #pragma unroll
  for (int h = 0; h < 2; h++) {
    const int m = min(m0 + wm0 + g + h * 8, M - 1);
    const int row = kr_div(m, div_1), q = m - row * Q;
    mp[h] = (row - r_first) * LP + q * stride + OFF - pad;
  }
  float c_frag[48];
  #pragma unroll
  for (int v = 0; v < 48; v++) c_frag[v] = 0.0f;
  const int ntiles = (CRS + BK - 1) / BK;
  // fast path: each thread's chunks (at most 4) fixed across k tiles
  const int NCRmax = (BK - 1 + S - 1) / S + 1;
  const bool fast = vec && NCRmax * NR * W4 <= 4 * NT;
  int c_row[4], c_ih[4], c_dst[4], c_cs[4];
  #pragma unroll
  for (int j = 0; j < 4; j++) {
    const int ch = tid + j * NT;
    const int seg = kr_div(ch, divw), col = ch - seg * W4;
    const int cs = seg / NR, rs = seg - cs * NR;
    const int row = r_first + rs;
    const int n = kr_div(row, div_2), p = row - n * P;
    c_cs[j] = (fast && cs < NCRmax && row < N * P) ? cs : -1;
    c_row[j] = n * C * H * W + col * 4;
    c_ih[j] = p * stride - pad;
    c_dst[j] = seg * LP + OFF + col * 4;
  }
  int *ftab = reinterpret_cast<int *>(smem + w_off + STAGES * BN * BK * 4);   // [STAGES][4][8]
  auto load_tile = [&](int kt) {
    const int k0 = kt * BK;
    float *pt = patch + (kt % STAGES) * stage_floats;
    const int cr_first = kr_div(k0, div_4);
    if (tid < BK) {
      const int k = k0 + tid;
      const int cr = kr_div(k, div_4), s = k - cr * S;
      ftab[(kt % STAGES) * 32 + (tid % 4) * 8 + tid / 4] = k < CRS ? (cr - cr_first) * NR * LP + s : 0;
    }
    if (fast) {
      #pragma unroll
      for (int j = 0; j < 4; j++) {
        const int cr = cr_first + c_cs[j];
        const int c = kr_div(cr, div_5), r = cr - c * R;
        const int ih = c_ih[j] + r;
        const bool in = c_cs[j] >= 0 && c < C && (unsigned)ih < (unsigned)H;
        const bool any = c_cs[j] >= 0;
        if (any) __pipeline_memcpy_async(pt + c_dst[j], x + (in ? c_row[j] + (c * H + ih) * W : 0), 16, in ? 0 : 16);
      }
    } else {
    const int NCR = kr_div(min(k0 + BK, CRS) - 1, div_4) - cr_first + 1;
    const int total = NCR * NR * W4;
    for (int ch = tid; ch < total; ch += NT) {
      const int seg = kr_div(ch, divw), col = ch - seg * W4;
      const int cs = seg / NR, rs = seg - cs * NR;
      const int cr = cr_first + cs, row = r_first + rs;
      const int c = kr_div(cr, div_5), r = cr - c * R;
      const int n = kr_div(row, div_2), p = row - n * P;
      const int ih = p * stride - pad + r;
      const bool in = row < N * P && (unsigned)ih < (unsigned)H;
      const float *src = x + ((size_t)(n * C + c) * H + (in ? ih : 0)) * W;
      float *dst = pt + seg * LP + OFF;
      if (vec) __pipeline_memcpy_async(dst + col * 4, in ? src + col * 4 : x, 16, in ? 0 : 16);
      else __pipeline_memcpy_async(dst + col, in ? src + col : x, 4, in ? 0 : 4);
    }
    }
    #pragma unroll
    for (int it = 0; it < (BN * BK) / NT; it++) {
      const int mm = tid / BK + it * 8, kk = tid % BK;
      const int k = n0 + mm;
      const bool in_2 = k < K && k0 + kk < CRS;
      __pipeline_memcpy_async(&w_tile[kt % STAGES][(mm) * BK + ((((kk) / 4) ^ ((mm) % 8)) * 4) + (kk) % 4], &w[in_2 ? CRS * k + (k0 + kk) : 0], sizeof(float), in_2 ? 0 : sizeof(float));
    }
  };
  auto load_frags = [&](int kt, unsigned (&a)[BK / 8][4]) {
    const float *pt = patch + (kt % STAGES) * stage_floats;
    const int4 f0 = *reinterpret_cast<const int4 *>(&ftab[(kt % STAGES) * 32 + t * 8]);
    const int4 f1 = *reinterpret_cast<const int4 *>(&ftab[(kt % STAGES) * 32 + t * 8 + 4]);
    const int kp[8] = {f0.x, f0.y, f0.z, f0.w, f1.x, f1.y, f1.z, f1.w};
    #pragma unroll
    for (int i = 0; i < BK / 8; i++) {
      #pragma unroll
      for (int hk = 0; hk < 2; hk++) {
        // k = k0 + i * 8 + t + hk * 4 = k0 + t + 4 * (2 * i + hk)
        a[i][hk * 2 + 0] = kr_tf32(pt[mp[0] + kp[2 * i + hk]]);
        a[i][hk * 2 + 1] = kr_tf32(pt[mp[1] + kp[2 * i + hk]]);
      }
    }
  };
  __syncthreads();   // the zeroed columns before any cp.async of a neighbouring chunk (distinct bytes; for order)
  for (int kt = 0; kt < STAGES - 1; kt++) {
    if (kt < ntiles) load_tile(kt);
    __pipeline_commit();
  }
  unsigned a_frag[BK / 8][4], a_next[BK / 8][4];
  __pipeline_wait_prior(STAGES - 2);
  kr_fence_async();
  __syncthreads();
  if (ntiles > 0) load_frags(0, a_frag);
  for (int kt = 0; kt < ntiles; kt++) {
    kr_wgmma_hold_n96(c_frag);
    kr_wgmma_fence();
    #pragma unroll
    for (int i = 0; i < BK / 8; i++)
      kr_wgmma_tf32_n96(c_frag, a_frag[i], kr_wgmma_desc(&w_tile[kt % STAGES][i * 8]));
    kr_wgmma_commit();
    if (kt + 1 < ntiles) {
      __pipeline_wait_prior(STAGES - 3);
      kr_fence_async();
      __syncthreads();
      if (kt + STAGES - 1 < ntiles) load_tile(kt + STAGES - 1);
      __pipeline_commit();
      load_frags(kt + 1, a_next);
    }
    kr_wgmma_wait();
    kr_wgmma_hold_n96(c_frag);
    #pragma unroll
    for (int i = 0; i < BK / 8; i++) {
      kr_wgmma_keep(a_frag[i]);
      if (kt + 1 < ntiles)
        for (int v = 0; v < 4; v++) a_frag[i][v] = a_next[i][v];
    }
  }
  __pipeline_wait_prior(0);
  __syncthreads();
  float (*out_tile)[BM + 4] = reinterpret_cast<float (*)[BM + 4]>(smem);
  #pragma unroll
  for (int i = 0; i < 12; i++) {
    #pragma unroll
    for (int v = 0; v < 4; v++)
      out_tile[i * 8 + t * 2 + v % 2][wm0 + g + (v / 2) * 8] = c_frag[i * 4 + v];
  }
  __syncthreads();
  for (int eo = 0; eo < BM * BN / NT; eo++) {
    const int mo = tid % BM, no = tid / BM + eo * 2;
    const int q = kr_mod(m0 + mo, div_1);
    const int p = kr_mod(kr_div(m0 + mo, div_1), div_2);
    const int k = n0 + no;
    const int n = kr_div(m0 + mo, div);
    const int idx = n * ((Q * P * K)) + p * (Q) + k * ((Q * P)) + q;
    if (idx < N * K * P * Q && q < Q && p < P && k < K) {
      float sum = b[k];
      sum += out_tile[no][mo];
      y[idx] = sum;
    }
  }
}

void launch_conv2d(int N, int C, int H, int W, int K, int R, int S, int stride, int pad, float *x,
                   float *w, float *b, float *y, cudaStream_t stream) {
  int P = (H + 2 * pad - R) / stride + 1;
  int Q = (W + 2 * pad - S) / stride + 1;
  int NRmax = (127 + Q - 1) / Q + 1;
  int NCRmax = (31 + S - 1) / S + 1;
  int LP = (OFF + W + pad + 3) / 4 * 4;
  // the rows a fragment may read past: q * stride + s - pad + OFF < OFF + W + pad
  int slots = NRmax * NCRmax;
  int stage_bytes = slots * LP * 4;
  int w_off = (3 * stage_bytes + 1023) / 1024 * 1024;
  int shmem = w_off + 3 * 96 * 32 * 4 + 3 * 32 * 4;
  if (shmem < 96 * 132 * 4) shmem = 96 * 132 * 4;
  cudaFuncSetAttribute(conv2d, cudaFuncAttributeMaxDynamicSharedMemorySize, shmem);
  dim3 grid((K + 95) / 96, (N * P * Q + 127) / 128);
  conv2d<<<grid, 256, shmem, stream>>>(N, C, H, W, K, R, S, stride, pad, P, Q, x, w, b, y, LP, slots);
}
