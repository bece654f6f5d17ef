// cxxnames.cpp - C++ functions whose names zond's matcher must find by their
// short names: methods of a class template (Box<long>::sum, its operator[],
// its member template get<int>, its operator<), std::map's operator[],
// std::vector's push_back, a user-defined literal, a function template.
// Built -O0 so that every one of them is called, not inlined.
#include <cstdio>
#include <map>
#include <vector>

struct Vec {
	int d[4];
	int &operator[](int i) { return d[i]; }
	int operator()(int a) const { return a + d[0]; }
};

template <class T> struct Box {
	T d[4];
	T &operator[](int i) { return d[i]; }
	T sum() const
	{
		T s = 0;
		for (T x : d)
			s += x;
		return s;
	}
	template <class U> U get(U u) const { return u + (U)d[0]; }
	bool operator<(const Box &o) const { return d[0] < o.d[0]; }
};

template <class T> T twice(T x)
{
	return 2 * x;
}

unsigned long long operator"" _km(unsigned long long v)
{
	return v * 1000;
}

int main()
{
	Vec v{{1, 2, 3, 4}};
	Box<long> b{{5, 6, 7, 8}};
	int s = 0;
	for (int i = 0; i < 4; i++)
		s += v[i] + (int)b[i];
	std::map<int, int> m;
	m[1] = 2;
	std::vector<int> w;
	w.push_back(3);
	s += v(3) + b.sum() + twice<int>(2) + b.get<int>(1) + (b < b) + m[1] + w[0];
	std::printf("%d %llu\n", s, 5_km);
	return 0;
}
