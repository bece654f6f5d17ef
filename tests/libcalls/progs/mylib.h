/* mylib.h - the libcalls tests' library (mylib.c). */
#ifndef ML_H
#define ML_H
struct ml_pair {
	long a, b;
};
struct ml_big {
	long v[8];
};
int ml_add(int a, int b);
int ml_sum(int a, int b); /* an alias of ml_add */
int ml_twice(int a);
long ml_many(long a, long b, long c, long d, long e, long f, long g, long h);
double ml_fsum(double a, double b, double c, double d, double e, double f, double g, double h,
	       double i);
long double ml_ldouble(long double x);
struct ml_pair ml_pair(long a, long b);
struct ml_big ml_big(long a);
int ml_vsum(int n, ...);
double ml_vfsum(int n, ...);
void ml_call(void (*fn)(void *), void *arg);
int ml_compare(const void *a, const void *b);
#endif
