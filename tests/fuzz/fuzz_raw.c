/* fuzz_raw - libFuzzer target: the raw reader (tool/ingest/raw_reader.h) on any bytes. */
#include "fuzz_file.h"
#include "ingest/raw_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct zerr err;
	struct zp_profile *p = profile_new();
	if (raw_read_into(p, path, NULL, &err) < 0)
		fuzz_check_error(err.msg, path);
	profile_free(p);
	return 0;
}
