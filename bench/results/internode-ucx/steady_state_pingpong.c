#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
int main(int argc,char**argv){
  MPI_Init(&argc,&argv); int r; MPI_Comm_rank(MPI_COMM_WORLD,&r);
  char buf[64]; memset(buf,0,sizeof buf); int sz=argc>1?atoi(argv[1]):8;
  MPI_Barrier(MPI_COMM_WORLD);
  double t00=MPI_Wtime();
  for(int blk=0;blk<12;blk++){
    int n=20000; double t0=MPI_Wtime();
    for(int i=0;i<n;i++){
      if(r==0){MPI_Send(buf,sz,MPI_CHAR,1,0,MPI_COMM_WORLD);MPI_Recv(buf,sz,MPI_CHAR,1,0,MPI_COMM_WORLD,MPI_STATUS_IGNORE);}
      else{MPI_Recv(buf,sz,MPI_CHAR,0,0,MPI_COMM_WORLD,MPI_STATUS_IGNORE);MPI_Send(buf,sz,MPI_CHAR,0,0,MPI_COMM_WORLD);}
    }
    double t=MPI_Wtime()-t0;
    if(r==0) printf("blk %2d at %5.2fs  %.3f us\n",blk,t0-t00,t/n/2*1e6);
  }
  MPI_Finalize(); return 0;}
