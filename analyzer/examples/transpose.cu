// Three ways to transpose an n x n float matrix with 32x8 blocks.
#define TILE 32
#define ROWS 8

// Reads are coalesced, writes stride by n: 32 sectors per store request.
__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int n) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < n && y + j < n) out[x * n + (y + j)] = in[(y + j) * n + x];
}

// Staged through shared memory: both global sides coalesce, but the column
// read from the tile is a 32-way bank conflict.
__global__ void transpose_shared(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < n && y + j < n) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// One word of padding per row moves each column into 32 different banks.
__global__ void transpose_padded(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < n && y + j < n) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

void launch(const float* in, float* out, int n) {
  dim3 block(TILE, ROWS);
  dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  transpose_naive<<<grid, block>>>(in, out, n);
  transpose_shared<<<grid, block>>>(in, out, n);
  transpose_padded<<<grid, block>>>(in, out, n);
}
