/* import.c - placeholder */
#include "trace.h"
int trace_read_qemu_log(const char *path, const struct trace_import *o, struct symbols *syms,
			struct zp_profile *p, struct trace_info *info, struct zerr *err)
{
	(void)o, (void)syms, (void)p, (void)info;
	return zerr_set(err, "%s: not yet", path);
}
int trace_read_pcs(const char *path, const struct trace_import *o, struct symbols *syms,
		   struct zp_profile *p, struct trace_info *info, struct zerr *err)
{
	(void)o, (void)syms, (void)p, (void)info;
	return zerr_set(err, "%s: not yet", path);
}
