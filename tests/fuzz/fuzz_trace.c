/*
 * fuzz_trace - libFuzzer targets for the trace readers (tool/trace/trace.h),
 * one per format, chosen at build time: FUZZ_ZTRACE (.ztrace), FUZZ_QEMU_LOG
 * (qemu -d in_asm,exec,nochain), FUZZ_PCS (one PC a line).  The logs carry
 * no architecture: there the first byte of the input chooses one ('0'
 * aarch64, '1' riscv64, '2' riscv32, '3' x86_64) and the rest is the file.
 */
#include "fuzz_file.h"
#include "trace/isa.h"
#include "trace/trace.h"

#if defined(FUZZ_ZTRACE)
static int read_trace(const uint8_t *data, size_t size, struct symbols *syms,
		      struct zp_profile *p, struct trace_info *info, struct zerr *err,
		      const char **path)
{
	*path = fuzz_file(data, size);
	return trace_read_ztrace(*path, syms, p, info, err);
}
#else
static int read_trace(const uint8_t *data, size_t size, struct symbols *syms,
		      struct zp_profile *p, struct trace_info *info, struct zerr *err,
		      const char **path)
{
	static const char *const arches[] = {"aarch64", "riscv64", "riscv32", "x86_64"};
	struct trace_import im = {.arch = arches[size ? data[0] & 3 : 0]};
	if (!isa_find(im.arch))
		im.arch = "aarch64"; /* no Zydis */
	*path = fuzz_file(data + (size > 0), size - (size > 0));
#if defined(FUZZ_QEMU_LOG)
	return trace_read_qemu_log(*path, &im, syms, p, info, err);
#elif defined(FUZZ_PCS)
	return trace_read_pcs(*path, &im, syms, p, info, err);
#else
#error "FUZZ_ZTRACE, FUZZ_QEMU_LOG or FUZZ_PCS"
#endif
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path;
	struct zerr err;
	struct trace_info info;
	struct symbols *syms = symbols_new();
	struct zp_profile *p = profile_new();
	if (read_trace(data, size, syms, p, &info, &err, &path) < 0)
		fuzz_check_error(err.msg, path);
	profile_free(p);
	symbols_free(syms);
	return 0;
}
