/* A pipeline of one-slot buffers, the SPIN twin of pipeline.mcasm: a
 * source puts the values 1, 2, ..., K, 1, 2, ... into buffer 0, stage k
 * (1..S) takes a value from buffer k-1 and puts it into buffer k, and a
 * sink takes from buffer S, all forever. Each buffer is a Java-style
 * monitor:
 *   put:  synchronized (b) { while (slot != 0) b.wait(); slot = v; b.notifyAll(); }
 *   take: synchronized (b) { while (slot == 0) b.wait(); v = slot; slot = 0; b.notifyAll(); }
 * each one atomic sequence whose wait blocks it and loses atomicity.
 * lock[b] holds the owner's _pid + 1 (mcvm's monitor owner), 0 when free;
 * w[p] is 2b+1 while p waits on buffer b and 2b+2 once notified, until it
 * holds the monitor again. v is 0 when a thread holds no value.
 * spin -DS=2 -DK=2 -a pipeline.pml && gcc -O2 -DNOREDUCE -o pan pan.c && ./pan -m100000 -c0 */
#ifndef S
#define S 2
#endif
#ifndef K
#define K 2
#endif
#define NB (S + 1)
#define NT (S + 2)

byte lock[NB];
byte slot[NB];
byte w[NT];

inline notifyall(m) {
	i = 0;
	do
	:: i < NT -> if :: w[i] == 2 * (m) + 1 -> w[i] = 2 * (m) + 2 :: else fi; i++
	:: else -> break
	od;
	i = 0
}

inline wait(m) {
	lock[m] = 0; w[_pid] = 2 * (m) + 1;
	w[_pid] == 2 * (m) + 2 && lock[m] == 0 -> lock[m] = _pid + 1; w[_pid] = 0
}

/* put(m): put v into buffer m; v = 0 after */
inline put(m) {
	atomic {
		lock[m] == 0 -> lock[m] = _pid + 1;
		do
		:: slot[m] != 0 -> wait(m)
		:: else -> break
		od;
		slot[m] = v;
		v = 0;
		notifyall(m);
		lock[m] = 0
	}
}

/* take(m): take the value of buffer m into v */
inline take(m) {
	atomic {
		lock[m] == 0 -> lock[m] = _pid + 1;
		do
		:: slot[m] == 0 -> wait(m)
		:: else -> break
		od;
		v = slot[m];
		slot[m] = 0;
		notifyall(m);
		lock[m] = 0
	}
}

/* the source's v is the last value it put, 0 before the first */
active proctype source() {
	byte i, v;
	do
	:: atomic {
		lock[0] == 0 -> lock[0] = _pid + 1;
		do
		:: slot[0] != 0 -> wait(0)
		:: else -> break
		od;
		v = v % K + 1;
		slot[0] = v;
		notifyall(0);
		lock[0] = 0
	   }
	od
}

active [S] proctype stage() {
	byte i, v;
	do
	:: take(_pid - 1); put(_pid)
	od
}

/* the sink drops what it takes */
active proctype sink() {
	byte i;
	do
	:: atomic {
		lock[S] == 0 -> lock[S] = _pid + 1;
		do
		:: slot[S] == 0 -> wait(S)
		:: else -> break
		od;
		slot[S] = 0;
		notifyall(S);
		lock[S] = 0
	   }
	od
}
