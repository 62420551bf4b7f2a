// runtime/emu/kr_emu_host.h: declarations of the CUDA runtime API so that the host code of a .cu
// compiles in an emulator module. The emulator never runs host code (krewrite launches kernels
// itself, and blanks the <<<…>>> launches in the emulator view); should one of these be called
// anyway, it does nothing and returns cudaErrorNotSupported.
#ifndef KR_EMU_HOST_H
#define KR_EMU_HOST_H

enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorLaunchFailure = 719,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorNoDevice = 100,
  cudaErrorNotReady = 600,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;
typedef cudaError_t CUresult_emulated;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10,
  cudaFuncAttributeRequiredClusterWidth = 11,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 16
};
enum cudaFuncCache { cudaFuncCachePreferNone, cudaFuncCachePreferShared, cudaFuncCachePreferL1, cudaFuncCachePreferEqual };
enum cudaSharedMemConfig { cudaSharedMemBankSizeDefault, cudaSharedMemBankSizeFourByte, cudaSharedMemBankSizeEightByte };
enum cudaLimit { cudaLimitStackSize, cudaLimitPrintfFifoSize, cudaLimitMallocHeapSize };
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrL2CacheSize = 38
};

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceMapHost 0x08
#define cudaCpuDeviceId (-1)

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem, sharedMemPerBlock;
  int regsPerBlock, warpSize;
  size_t memPitch;
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
  size_t totalConstMem;
  int major, minor;
  size_t textureAlignment;
  int deviceOverlap, multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory;
  int computeMode, concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, tccDriver;
  int asyncEngineCount, unifiedAddressing, memoryClockRate, memoryBusWidth, l2CacheSize;
  int persistingL2CacheMaxSize, maxThreadsPerMultiProcessor, streamPrioritiesSupported;
  int globalL1CacheSupported, localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID;
  int singleToDoublePrecisionPerfRatio, pageableMemoryAccess, concurrentManagedAccess;
  int computePreemptionSupported, cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int maxBlocksPerMultiProcessor;
};

struct cudaFuncAttributes {
  size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
  int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA;
  int maxDynamicSharedSizeBytes, preferredShmemCarveout;
};

#define KR_HOST_STUB(decl) inline cudaError_t decl { return cudaErrorNotSupported; }

KR_HOST_STUB(cudaMalloc(void **, size_t))
template <class T> KR_HOST_STUB(cudaMalloc(T **, size_t))
KR_HOST_STUB(cudaMallocManaged(void **, size_t, unsigned = cudaMemAttachGlobal))
template <class T> KR_HOST_STUB(cudaMallocManaged(T **, size_t, unsigned = cudaMemAttachGlobal))
KR_HOST_STUB(cudaMallocHost(void **, size_t))
template <class T> KR_HOST_STUB(cudaMallocHost(T **, size_t))
KR_HOST_STUB(cudaHostAlloc(void **, size_t, unsigned))
template <class T> KR_HOST_STUB(cudaHostAlloc(T **, size_t, unsigned))
KR_HOST_STUB(cudaMallocPitch(void **, size_t *, size_t, size_t))
KR_HOST_STUB(cudaMallocAsync(void **, size_t, cudaStream_t))
KR_HOST_STUB(cudaFree(void *))
KR_HOST_STUB(cudaFreeHost(void *))
KR_HOST_STUB(cudaFreeAsync(void *, cudaStream_t))
KR_HOST_STUB(cudaHostRegister(void *, size_t, unsigned))
KR_HOST_STUB(cudaHostUnregister(void *))
KR_HOST_STUB(cudaMemcpy(void *, const void *, size_t, cudaMemcpyKind))
KR_HOST_STUB(cudaMemcpyAsync(void *, const void *, size_t, cudaMemcpyKind, cudaStream_t = 0))
KR_HOST_STUB(cudaMemcpy2D(void *, size_t, const void *, size_t, size_t, size_t, cudaMemcpyKind))
KR_HOST_STUB(cudaMemset(void *, int, size_t))
KR_HOST_STUB(cudaMemsetAsync(void *, int, size_t, cudaStream_t = 0))
KR_HOST_STUB(cudaMemPrefetchAsync(const void *, size_t, int, cudaStream_t = 0))
KR_HOST_STUB(cudaMemGetInfo(size_t *, size_t *))
template <class T> KR_HOST_STUB(cudaMemcpyToSymbol(const T &, const void *, size_t, size_t = 0, cudaMemcpyKind = cudaMemcpyHostToDevice))
template <class T> KR_HOST_STUB(cudaMemcpyToSymbolAsync(const T &, const void *, size_t, size_t = 0, cudaMemcpyKind = cudaMemcpyHostToDevice, cudaStream_t = 0))
template <class T> KR_HOST_STUB(cudaMemcpyFromSymbol(void *, const T &, size_t, size_t = 0, cudaMemcpyKind = cudaMemcpyDeviceToHost))
template <class T> KR_HOST_STUB(cudaGetSymbolAddress(void **, const T &))
KR_HOST_STUB(cudaDeviceSynchronize())
KR_HOST_STUB(cudaDeviceReset())
KR_HOST_STUB(cudaDeviceSetCacheConfig(cudaFuncCache))
KR_HOST_STUB(cudaDeviceSetLimit(cudaLimit, size_t))
KR_HOST_STUB(cudaDeviceGetLimit(size_t *, cudaLimit))
KR_HOST_STUB(cudaDeviceGetAttribute(int *, cudaDeviceAttr, int))
KR_HOST_STUB(cudaSetDevice(int))
KR_HOST_STUB(cudaGetDevice(int *))
KR_HOST_STUB(cudaGetDeviceCount(int *))
KR_HOST_STUB(cudaGetDeviceProperties(cudaDeviceProp *, int))
KR_HOST_STUB(cudaGetLastError())
KR_HOST_STUB(cudaPeekAtLastError())
KR_HOST_STUB(cudaStreamCreate(cudaStream_t *))
KR_HOST_STUB(cudaStreamCreateWithFlags(cudaStream_t *, unsigned))
KR_HOST_STUB(cudaStreamDestroy(cudaStream_t))
KR_HOST_STUB(cudaStreamSynchronize(cudaStream_t))
KR_HOST_STUB(cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned = 0))
KR_HOST_STUB(cudaEventCreate(cudaEvent_t *))
KR_HOST_STUB(cudaEventCreateWithFlags(cudaEvent_t *, unsigned))
KR_HOST_STUB(cudaEventRecord(cudaEvent_t, cudaStream_t = 0))
KR_HOST_STUB(cudaEventSynchronize(cudaEvent_t))
KR_HOST_STUB(cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t))
KR_HOST_STUB(cudaEventDestroy(cudaEvent_t))
KR_HOST_STUB(cudaProfilerStart())
KR_HOST_STUB(cudaProfilerStop())
template <class T> KR_HOST_STUB(cudaFuncSetAttribute(T *, cudaFuncAttribute, int))
template <class T> KR_HOST_STUB(cudaFuncSetCacheConfig(T *, cudaFuncCache))
template <class T> KR_HOST_STUB(cudaFuncGetAttributes(cudaFuncAttributes *, T *))
template <class T> KR_HOST_STUB(cudaLaunchKernel(T *, dim3, dim3, void **, size_t = 0, cudaStream_t = 0))
template <class T> KR_HOST_STUB(cudaLaunchCooperativeKernel(T *, dim3, dim3, void **, size_t = 0, cudaStream_t = 0))
template <class T> KR_HOST_STUB(cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *, T, int, size_t))
template <class T> KR_HOST_STUB(cudaOccupancyMaxPotentialBlockSize(int *, int *, T, size_t = 0, int = 0))

enum cudaLaunchAttributeID {
  cudaLaunchAttributeIgnore = 0,
  cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
  cudaLaunchAttributeProgrammaticStreamSerialization = 6
};
union cudaLaunchAttributeValue {
  char pad[64];
  int cooperative;
  struct { unsigned int x, y, z; } clusterDim;
  int programmaticStreamSerializationAllowed;
};
struct cudaLaunchAttribute {
  cudaLaunchAttributeID id;
  char pad[8 - sizeof(cudaLaunchAttributeID)];
  cudaLaunchAttributeValue val;
};
struct cudaLaunchConfig_t {
  dim3 gridDim, blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned int numAttrs;
};
template <class... P, class... A>
KR_HOST_STUB(cudaLaunchKernelEx(const cudaLaunchConfig_t *, void (*)(P...), A &&...))
#undef KR_HOST_STUB

inline const char *cudaGetErrorString(cudaError_t e) {
  return e == cudaSuccess ? "no error" : "not supported by the krewrite CPU emulator";
}
inline const char *cudaGetErrorName(cudaError_t e) {
  return e == cudaSuccess ? "cudaSuccess" : "cudaErrorNotSupported";
}

#endif
