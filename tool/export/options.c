/* options.c - what every exporter checks before writing. */
#include "export.h"

#include <inttypes.h>

#include "report/format.h"

int export_check_options(const struct zp_profile *p, const struct export_options *o,
			 struct zerr *err)
{
	if (o->thread != ZP_NONE && o->thread >= p->nthreads)
		return zerr_set(err, "run %" PRId64 " has no thread number %" PRIu32, p->run.id,
				o->thread);
	if (metric_pick(p, o->event) == -2)
		return zerr_set(err, "run %" PRId64 " has no event number %d", p->run.id, o->event);
	return 0;
}
