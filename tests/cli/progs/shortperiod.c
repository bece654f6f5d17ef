/* work(): a loop of divisions with no call; many(): n/10 calls of tiny(), a few ns each
   (QA s13 T F3's program) */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) double work(long n){ double s=0; for(long i=1;i<n;i++) s+=1.0/(double)i; return s; }
__attribute__((noinline)) long tiny(long x){ return x ^ (x>>3); }
__attribute__((noinline)) long many(long n){ long s=0; for(long i=0;i<n;i++) s+=tiny(i); return s; }
int main(int argc,char**argv){ long n=argc>1?atol(argv[1]):100000000; printf("%f %ld\n", work(n), many(n/10)); return 0; }
