// throwstatic.cpp - a C++ program that throws, linked with -static: libgcc's
// unwinder is the program's own code, uw_init_context_1 included, which
// takes the first frame from its own return address and aborts when no FDE
// covers it (QA s14 V3 F1).  Prints s=300 caught=10, exits 10.
#include <cstdio>
#include <stdexcept>

__attribute__((noipa)) int thrower(int i)
{
	if (i % 3 == 0)
		throw std::runtime_error("e");
	return i;
}

int main()
{
	int caught = 0;
	long s = 0;
	for (int i = 0; i < 30; i++) {
		try {
			s += thrower(i);
		} catch (const std::exception &) {
			caught++;
		}
	}
	std::printf("s=%ld caught=%d\n", s, caught);
	return caught;
}
