// params: kind=direct order=write_coalesced tile=16 pad=0 block_x=16 block_y=16
// launch: grid=(cdiv(rows, 16), cdiv(cols, 16)) block=(16, 16)
// The other naive order: writes coalesced, reads strided by cols.
extern "C" __global__ void transpose_write_coalesced(const float* x, float* y, int rows, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < rows && j < cols) y[(size_t)j * rows + i] = x[(size_t)i * cols + j];
}
