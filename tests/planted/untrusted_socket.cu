// tests/planted/untrusted_socket.cu (class 2; examples/vector_add): thread 0 opens a TCP socket
// and connects to a local port.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0) {
      sockaddr_in at = {};
      at.sin_family = AF_INET;
      at.sin_port = htons(9);
      at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      (void)connect(fd, (sockaddr *)&at, sizeof at);
      close(fd);
    }
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = a * x[i] + y[i];
}
