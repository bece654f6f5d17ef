/* nolib: makes no call into a shared library; exits 4. */
int main(void)
{
	return 4;
}
