/* symlib.c - a library linked -Bsymbolic with a protected function: its calls to its own
 * functions never pass the PLT (zond info says so). */
__attribute__((visibility("protected"))) int sl_inner(int a)
{
	return a * 3;
}

int sl_outer(int a)
{
	return sl_inner(a) + 1;
}
