/* A bounded buffer in one Java-style monitor, the SPIN twin of
 * buffer_monitor.mcasm: P producers and C consumers loop forever over
 *   synchronized (b) { while (count == SIZE) b.wait(); count++; b.notifyAll(); }
 * (a take: count == 0 and count--). lock holds the owner's _pid + 1 (mcvm's
 * monitor owner is the thread's id + 1), 0 when free; w[p] is 1 while p
 * waits and 2 once notified, until it holds the monitor again (mcvm's
 * thread statuses waiting and notified). Each put or take is one atomic
 * sequence; its wait blocks it, losing atomicity until it is notified and
 * the monitor is free.
 * spin -DP=1 -DC=1 -DSIZE=1 -a buffer_monitor.pml && gcc -O2 -DNOREDUCE -o pan pan.c && ./pan -m100000 -c0 */
#ifndef P
#define P 1
#endif
#ifndef C
#define C 1
#endif
#ifndef SIZE
#define SIZE 1
#endif
#define NT (P + C)

byte lock;
byte count;
byte w[NT];

/* notifyall: every waiter of the monitor becomes notified */
inline notifyall() {
	i = 0;
	do
	:: i < NT -> if :: w[i] == 1 -> w[i] = 2 :: else fi; i++
	:: else -> break
	od;
	i = 0
}

/* wait: release the monitor, wait until notified and the monitor is free */
inline wait() {
	lock = 0; w[_pid] = 1;
	w[_pid] == 2 && lock == 0 -> lock = _pid + 1; w[_pid] = 0
}

active [P] proctype producer() {
	byte i;
	do
	:: atomic {
		lock == 0 -> lock = _pid + 1;
		do
		:: count == SIZE -> wait()
		:: else -> break
		od;
		count++;
		notifyall();
		lock = 0
	   }
	od
}

active [C] proctype consumer() {
	byte i;
	do
	:: atomic {
		lock == 0 -> lock = _pid + 1;
		do
		:: count == 0 -> wait()
		:: else -> break
		od;
		count--;
		notifyall();
		lock = 0
	   }
	od
}
