/*
 * clangcatch.cc - an exception thrown through mid and caught in main, then
 * a call of after (QA s14 V1 F2): built by clang with -static-libstdc++,
 * whose frames the exception left zond cannot close (unwind.sh).
 */
#include <cstdio>
#include <stdexcept>

__attribute__((noinline)) int thrower(int i)
{
	if (i >= 0)
		throw std::runtime_error("thrown");
	return i;
}

__attribute__((noinline)) int mid(int i)
{
	return thrower(i) + 1;
}

__attribute__((noinline)) int after(int i)
{
	return i * 2;
}

int main()
{
	int sum = 0;
	for (int i = 0; i < 3; i++) {
		try {
			sum += mid(i);
		} catch (const std::exception &) {
			sum += after(i);
		}
	}
	std::printf("%d\n", sum);
	return 0;
}
