/* Readers and writers in one Java-style monitor, the SPIN twin of
 * readers_writers.mcasm: R readers and W writers loop forever.
 *   reader: synchronized (rw) { while (writing) rw.wait(); readers++; }
 *           synchronized (rw) { readers--; if (readers == 0) rw.notifyAll(); }
 *   writer: synchronized (rw) { while (writing || readers > 0) rw.wait(); writing = 1; }
 *           synchronized (rw) { writing = 0; rw.notifyAll(); }
 * Between its two blocks a thread reads or writes. lock holds the owner's
 * _pid + 1 (mcvm's monitor owner), 0 when free; w[p] is 1 while p waits
 * and 2 once notified, until it holds the monitor again. Each block is one
 * atomic sequence, whose wait blocks it and loses atomicity.
 * spin -DR=2 -DW=1 -a readers_writers.pml && gcc -O2 -DNOREDUCE -o pan pan.c && ./pan -m100000 -c0 */
#ifndef R
#define R 2
#endif
#ifndef W
#define W 1
#endif
#define NT (R + W)

byte lock;
byte readers;
byte writing;
byte w[NT];

inline notifyall() {
	i = 0;
	do
	:: i < NT -> if :: w[i] == 1 -> w[i] = 2 :: else fi; i++
	:: else -> break
	od;
	i = 0
}

inline wait() {
	lock = 0; w[_pid] = 1;
	w[_pid] == 2 && lock == 0 -> lock = _pid + 1; w[_pid] = 0
}

active [R] proctype reader() {
	byte i;
	do
	:: atomic {
		lock == 0 -> lock = _pid + 1;
		do
		:: writing -> wait()
		:: else -> break
		od;
		readers++;
		lock = 0
	   };
	   atomic {
		lock == 0 -> lock = _pid + 1;
		readers--;
		if
		:: readers == 0 -> notifyall()
		:: else
		fi;
		lock = 0
	   }
	od
}

active [W] proctype writer() {
	byte i;
	do
	:: atomic {
		lock == 0 -> lock = _pid + 1;
		do
		:: writing || readers > 0 -> wait()
		:: else -> break
		od;
		writing = 1;
		lock = 0
	   };
	   atomic {
		lock == 0 -> lock = _pid + 1;
		writing = 0;
		notifyall();
		lock = 0
	   }
	od
}
