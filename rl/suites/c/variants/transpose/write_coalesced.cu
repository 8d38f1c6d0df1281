// params: kind=direct order=write_coalesced block_x=16 block_y=16
// launch: grid=(cdiv(rows, 16), cdiv(cols, 16)) block=(16, 16)
// The other naive order: writes coalesced, reads strided by cols.
extern "C" __global__ void transpose_write_coalesced(int rows, int cols, const float* a, float* b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < rows && j < cols)
        b[(size_t)j * rows + i] = a[(size_t)i * cols + j];
}
