// tests/verify/hostile/socket.cu: vector_add, correct but for thread 0, which opens a TCP
// connection to 127.0.0.1.
// The sandbox must stop it (tests/verify_hostile.sh); KR_HOSTILE_MARK names a file that must
// not exist afterwards, KR_HOSTILE_VICTIM one that must still exist.
// expect: tried to open a network socket (socket AF_INET) at
#include <cuda_runtime.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(9);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connect(s, (struct sockaddr *)&sa, sizeof sa);
  }
  if (i < n) out[i] = a * x[i] + y[i];
}

void launch_vector_add(int n, float a, float *x, float *y, float *out, cudaStream_t stream) {
  vector_add<<<(n + 255) / 256, 256, 0, stream>>>(n, a, x, y, out);
}
