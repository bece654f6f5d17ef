/*
 * fuzz_store - libFuzzer target: a profile store (tool/store/store.h) of any
 * bytes, opened, listed, and every run loaded, as `zond runs` and `zond
 * report` do.
 */
#include "fuzz_file.h"
#include "store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct zerr err;
	struct store *s = store_open(path, STORE_READ, &err);
	if (!s)
		return 0; /* SQLite's own messages may not name the file: not checked */
	struct zp_profile **runs;
	size_t n;
	if (store_list_runs(s, &runs, &n, &err) == 0) {
		for (size_t i = 0; i < n; i++) {
			struct zp_profile *p = store_load_run(s, runs[i]->run.id, &err);
			profile_free(p);
			profile_free(runs[i]);
		}
		free(runs);
	}
	store_close(s);
	return 0;
}
