/*
 * chaina.c - a library calling a library (chain.c), as zlib's adler32 calls
 * adler32_z: through the PLT, as a tail call (ca_tail: the callee returns
 * straight to ca_tail's caller, one return slot for both) and as a call
 * (ca_nest); ca_deep calls ca_nest in its own library through the PLT.
 */
int cb_leaf(int x);
int cb_len(const char *s);

int ca_tail(int x)
{
	return cb_leaf(x);
}

int ca_nest(int x)
{
	return cb_leaf(x) * 2 + cb_len("chain");
}

int ca_deep(int x)
{
	return ca_nest(x) + 1;
}
