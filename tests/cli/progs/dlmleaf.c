/* dlmleaf: an instrumented library the plugin dlmplug dlopens from inside its namespace. */
int dlmleaf_fn(int i)
{
	return i + 1;
}
