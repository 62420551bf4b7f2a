/* bench/naive_error.c: how far the naive thread-per-row examples' serial fp32 sums are from an
 * fp64 sum of the same fp32 terms, beside a sum strided over 256 threads (what block_reduce and
 * warp_reduce compute), for the tolerances of examples/{softmax_rowthread,colsum,matvec_t,mean_var}.
 * The verifier's reference is the naive kernel, so an exact rewrite that sums in another order is
 * as far from it as the naive kernel is from the exact sum. Inputs as the examples' fills.
 *   cc -O1 -ffp-contract=off -o naive_error bench/naive_error.c -lm && ./naive_error */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
static double urand(void){return (rand()+0.5)/((double)RAND_MAX+1);}
static float nrm(double m,double sd){return (float)(m+sd*sqrt(-2*log(urand()))*cos(2*M_PI*urand()));}
/* the sum of n terms t(i) in fp32 serially, in fp32 strided over T threads then combined, and in fp64 */
typedef float (*Term)(int,void*);
static void sums(int n,Term t,void*c,float*ser,float*str,double*exact){
  float s=0; double e=0; for(int i=0;i<n;i++){float v=t(i,c);s+=v;e+=v;}
  float part[256]={0}; for(int i=0;i<n;i++) part[i%256]+=t(i,c);
  float q=0; for(int i=0;i<256;i++) q+=part[i];
  *ser=s;*str=q;*exact=e;}
typedef struct{float*x;float m;} SX;
static float texp(int i,void*c){SX*s=c;return expf(s->x[i]-s->m);}
static float tid(int i,void*c){return ((float*)c)[i];}
int main(void){
  srand(1);
  for(int n=1000;n<=65536;n*=4){ /* softmax of normal(0,3): y relative L2 of naive vs fp64, strided vs fp64 */
    double en=0,es=0,d=0;int rows=4;
    for(int r=0;r<rows;r++){float*x=malloc(n*4);float m=-INFINITY;for(int i=0;i<n;i++){x[i]=nrm(0,3);if(x[i]>m)m=x[i];}
      SX c={x,m};float a,b;double e;sums(n,texp,&c,&a,&b,&e);
      double na=0,nb=0,nd=0,ny=0;for(int i=0;i<n;i++){double y=exp((double)x[i]-m)/e;float ya=expf(x[i]-m)/a,yb=expf(x[i]-m)/b;na+=(ya-y)*(ya-y);nb+=(yb-y)*(yb-y);nd+=(ya-yb)*(ya-yb);ny+=y*y;}
      en=fmax(en,sqrt(na/ny));es=fmax(es,sqrt(nb/ny));d=fmax(d,sqrt(nd/ny));free(x);}
    printf("softmax cols=%d: naive-fp64 %.2e strided-fp64 %.2e naive-strided %.2e\n",n,en,es,d);}
  for(int n=1000;n<=65536;n*=4){ /* sums of uniform[0,1] (colsum) per column, 64 columns */
    double na=0,nb=0,nd=0,ny=0;
    for(int col=0;col<64;col++){float*x=malloc(n*4);for(int i=0;i<n;i++)x[i]=(float)urand();float a,b;double e;sums(n,tid,x,&a,&b,&e);
      na+=(a-e)*(a-e);nb+=(b-e)*(b-e);nd+=(a-b)*(a-b);ny+=e*e;free(x);}
    printf("colsum M=%d: naive-fp64 %.2e strided-fp64 %.2e naive-strided %.2e\n",n,sqrt(na/ny),sqrt(nb/ny),sqrt(nd/ny));}
  for(int n=1000;n<=16384;n*=4){ /* dot products of uniform[-1,1] (matvec_t) */
    double na=0,nb=0,nd=0,ny=0;
    for(int col=0;col<64;col++){float*x=malloc(n*4);for(int i=0;i<n;i++)x[i]=(float)(2*urand()-1)*(float)(2*urand()-1);float a,b;double e;sums(n,tid,x,&a,&b,&e);
      na+=(a-e)*(a-e);nb+=(b-e)*(b-e);nd+=(a-b)*(a-b);ny+=e*e;free(x);}
    printf("matvec_t M=%d: naive-fp64 %.2e strided-fp64 %.2e naive-strided %.2e\n",n,sqrt(na/ny),sqrt(nb/ny),sqrt(nd/ny));}
  for(int n=1000;n<=16384;n*=4){ /* means of normal(1,2) (mean_var) */
    double na=0,nb=0,nd=0,ny=0;
    for(int col=0;col<64;col++){float*x=malloc(n*4);for(int i=0;i<n;i++)x[i]=nrm(1,2);float a,b;double e;sums(n,tid,x,&a,&b,&e);
      a/=n;b/=n;e/=n;na+=(a-e)*(a-e);nb+=(b-e)*(b-e);nd+=(a-b)*(a-b);ny+=e*e;free(x);}
    printf("mean_var mean cols=%d: naive-fp64 %.2e strided-fp64 %.2e naive-strided %.2e\n",n,sqrt(na/ny),sqrt(nb/ny),sqrt(nd/ny));}
}
