// C++ for the symbols tests: a member function and a template instance.
namespace shop
{

struct Cart {
	int total(int n) const;
};

int Cart::total(int n) const
{
	return n * 3;
}

template <typename T> T twice(T x)
{
	return x + x;
}

} // namespace shop

extern "C" int cxx_entry(int n)
{
	shop::Cart c;
	return c.total(n) + (int)shop::twice<long>(n);
}
