/* lib.c - built twice, as la.so (-DNAME=fa) and lb.so (-DNAME=fb): one branchless leaf. */
int NAME(int x)
{
	return x + 1;
}
