// C++ exceptions thrown through instrumented frames and caught two levels up.
#include <cstdio>

extern "C" {
void thrower(int n)
{
	if (n == 0)
		throw 42;
	thrower(n - 1);
}

void after()
{
}

void catcher()
{
	try {
		thrower(2);
	} catch (int) {
	}
	after();
}
}

int main()
{
	for (int i = 0; i < 2; i++)
		catcher();
	std::puts("caught");
	return 0;
}
