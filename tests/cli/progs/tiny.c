/* A tiny instrumented program with known counts: add() runs 3 times. */
static int add(int a, int b)
{
	return a + b;
}

int main(void)
{
	int x = add(1, 2);
	x = add(x, 3);
	return add(x, -6); /* 0 */
}
