/* frag.c - the validation set's C workloads (CORPUS_SET=validation,
 * session 12: recorded after the detector's changes of that session and
 * not tuned on).  A table of 20,000 blocks of 200-800 bytes, 50 replaced
 * at random every 0.1 s (glibc's heap creeps under it, as under ok_perl's
 * strings); by the executable's name: vk_frag leaks 3 MiB/h of 64-512-byte
 * blocks; vk_fraglate leaks 6 MiB/h from 14 minutes on, after a start-up
 * ramp of 2 MiB over its first 5 minutes; vo_ramp has the ramp and no
 * leak; vo_frag neither.  The leaks are the bytes asked of malloc, by
 * design (no log: extract.sh writes the counters from the design). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libgen.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
int main(int argc,char**argv){
	const char *name=basename(argv[0]); (void)argc;
	double rate=0, onset=0; int ramp=0;
	if(!strcmp(name,"vk_frag")) rate=3.0*1048576/3600;
	if(!strcmp(name,"vk_fraglate")){rate=6.0*1048576/3600; onset=14*60; ramp=1;}
	if(!strcmp(name,"vo_ramp")) ramp=1;
	enum{N=20000}; static char *t[N]; srand(7);
	for(int i=0;i<N;i++){size_t s=200+i%600;t[i]=malloc(s);memset(t[i],1,s);}
	double t0=now(), last=t0, owed=0, ramped=0;
	for(;;){
		struct timespec d={0,100000000}; nanosleep(&d,0);
		for(int k=0;k<50;k++){int i=rand()%N; size_t s=200+rand()%600; free(t[i]); t[i]=malloc(s); memset(t[i],2,s);}
		double e=now()-t0;
		if(ramp && e<300){double want=2.0*1048576*e/300; while(ramped<want){char*p=malloc(4096);memset(p,3,4096);ramped+=4096;}}
		if(rate>0 && e>=onset){owed+=rate*(now()-last); while(owed>=64){size_t s=64+rand()%448; char*p=malloc(s); memset(p,4,s); owed-=s;}}
		last=now();
	}
}
