/* Nested monitors, the SPIN twin of nested_monitor.mcasm: a buffer of
 * SIZE places guarded by two counting semaphores, full (0) and empty
 * (SIZE), each a Java-style monitor, used inside the buffer's monitor:
 *   producer: synchronized (buf) { empty.down(); full.up(); }
 *   consumer: synchronized (buf) { full.down(); empty.up(); }
 *   down: synchronized (s) { while (v == 0) s.wait(); v--; }
 *   up:   synchronized (s) { v++; s.notifyAll(); }
 * P producers and C consumers loop forever, each working (one step,
 * counting its rounds modulo WORK) before it enters the buffer. A thread
 * waiting in down releases the semaphore's monitor but still holds the
 * buffer's, so the thread that would wake it blocks on the buffer: the
 * nested-monitor deadlock, reached as soon as a consumer finds the buffer
 * empty or a producer finds it full. Five steps per round: work, lock
 * buf, down, up (each one atomic sequence, whose wait blocks it and loses
 * atomicity), unlock buf. The round counters are a global array so that
 * SPIN's statement merging does not fold the work into the next step.
 * Monitors: 0 buf, 1 full, 2 empty; lock[m] holds the owner's _pid + 1
 * (mcvm's monitor owner), 0 when free; w[p] is 2m+1 while p waits on m
 * and 2m+2 once notified, until it holds the monitor again. The
 * semaphores' counts are cfull and cempty (full and empty are Promela
 * keywords).
 * spin -DSIZE=1 -DP=1 -DC=1 -DWORK=2 -a nested_monitor.pml && gcc -O2 -DNOREDUCE -o pan pan.c && ./pan -m100000 -c0 */
#ifndef SIZE
#define SIZE 1
#endif
#ifndef P
#define P 1
#endif
#ifndef C
#define C 1
#endif
#ifndef WORK
#define WORK 2
#endif
#define NT (P + C)
#define BUF 0
#define FULL 1
#define EMPTY 2

byte lock[3];
byte cfull = 0;
byte cempty = SIZE;
byte w[NT];
byte work[NT];

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

/* down(m, v): the semaphore m whose count is v */
inline down(m, v) {
	atomic {
		lock[m] == 0 -> lock[m] = _pid + 1;
		do
		:: v == 0 -> wait(m)
		:: else -> break
		od;
		v--;
		lock[m] = 0
	}
}

inline up(m, v) {
	atomic {
		lock[m] == 0 -> lock[m] = _pid + 1;
		v++;
		notifyall(m);
		lock[m] = 0
	}
}

active [P] proctype producer() {
	byte i;
	do
	:: work[_pid] = (work[_pid] + 1) % WORK;
	   atomic { lock[BUF] == 0 -> lock[BUF] = _pid + 1 };
	   down(EMPTY, cempty);
	   up(FULL, cfull);
	   lock[BUF] = 0
	od
}

active [C] proctype consumer() {
	byte i;
	do
	:: work[_pid] = (work[_pid] + 1) % WORK;
	   atomic { lock[BUF] == 0 -> lock[BUF] = _pid + 1 };
	   down(FULL, cfull);
	   up(EMPTY, cempty);
	   lock[BUF] = 0
	od
}
