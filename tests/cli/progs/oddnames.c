/* Functions renamed by names.sh (objcopy) to "a;b", "x y 12" and "new<LF>line". */
static volatile long t;
__attribute__((noinline)) void semi(int k) { t += k; }
__attribute__((noinline)) void spacey(int k) { t += k; }
__attribute__((noinline)) void nl(int k) { t += k; }
__attribute__((noinline)) void outer(int k) { semi(k); spacey(k); nl(k); }
int main(void)
{
	for (int i = 0; i < 4; i++)
		outer(i);
	return 0;
}
