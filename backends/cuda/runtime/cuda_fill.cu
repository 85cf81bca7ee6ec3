/* cuda_fill.cu - xpb_backend_i.buffer_fill on one device: a grid-stride kernel writing one 32-bit
 * word everywhere in a range, so poisoning a case's outputs (gigabytes at the large collectives)
 * costs the device's bandwidth instead of a copy from the host. cudaMemset writes bytes only; the
 * driver API's cuMemsetD32 would tie the backend to libcuda at link time. */
#include "cuda_common.cuh"

__global__ void xpb_cuda_fill_u32(uint32_t *__restrict__ p, size_t n, uint32_t word)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = word;
}

xpb_status xpb_cuda_dev_buffer_fill(void *ctx, xpb_buffer *buf, size_t offset, size_t bytes, uint32_t word,
                                    xpb_error *err)
{
    xpb_cuda_ctx *c = (xpb_cuda_ctx *)ctx;
    xpb_status st = xpb_cuda_buffer_check_range(buf, offset, bytes, "fill", err);
    if (st != XPB_OK || bytes == 0)
        return st;
    if (offset % 4 || bytes % 4)
        return xpb_fail(err, XPB_ERR_USAGE, "cuda fill of %zu bytes at offset %zu: both must be multiples of 4",
                        bytes, offset);
    if ((st = xpb_cuda_activate(c, err)) != XPB_OK)
        return st;
    const size_t n = bytes / 4;
    const unsigned threads = 256;
    /* enough blocks to fill every SM several times over; the stride covers the rest */
    const size_t want = (n + threads - 1) / threads;
    const unsigned blocks = (unsigned)(want < 4096 ? want : 4096);
    xpb_cuda_fill_u32<<<blocks, threads, 0, c->stream>>>((uint32_t *)((char *)buf->ptr + offset), n, word);
    XPB_CUDA_CHECK_LAUNCH(err, "fill");
    XPB_CUDA_CHECK(err, cudaStreamSynchronize(c->stream));
    return XPB_OK;
}
