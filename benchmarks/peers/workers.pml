/* Replicated workers, the SPIN twin of workers.mcasm: W workers share a
 * pool of work items in one Java-style monitor, forever. A round starts
 * with one item of depth 0; an item of depth d < D splits into two items
 * of depth d + 1, one of depth D is a leaf and counts as leaves; the
 * worker that finishes the last item of a round starts the next.
 *   synchronized (pool) { while (total == 0) pool.wait();
 *                         take an item of the lowest depth d; total--; busy++; }
 *   (work on it)
 *   synchronized (pool) { busy--; if (d < D) { add two of depth d + 1 } else leaves++;
 *                         if (total == 0 && busy == 0) { new round } pool.notifyAll(); }
 * root is 1 while the depth-0 item is in the pool, items[d] counts the
 * items of depth d (1..D). lock holds the owner's _pid + 1 (mcvm's
 * monitor owner), 0 when free; w[p] is 1 while p waits and 2 once
 * notified, until it holds the monitor again. Each block is one atomic
 * sequence, whose wait blocks it and loses atomicity; d is 0 when the
 * worker holds no item.
 * spin -DW=2 -DD=1 -a workers.pml && gcc -O2 -DNOREDUCE -o pan pan.c && ./pan -m100000 -c0 */
#ifndef W
#define W 2
#endif
#ifndef D
#define D 1
#endif

byte lock;
byte root = 1;
byte items[D + 1];
byte total = 1;
byte busy;
byte leaves;
byte w[W];

inline notifyall() {
	i = 0;
	do
	:: i < W -> if :: w[i] == 1 -> w[i] = 2 :: else fi; i++
	:: else -> break
	od;
	i = 0
}

inline wait() {
	lock = 0; w[_pid] = 1;
	w[_pid] == 2 && lock == 0 -> lock = _pid + 1; w[_pid] = 0
}

active [W] proctype worker() {
	byte i, d;
	do
	:: atomic {
		lock == 0 -> lock = _pid + 1;
		do
		:: total == 0 -> wait()
		:: else -> break
		od;
		if
		:: root -> root = 0
		:: else ->
			d = 1;
			do
			:: items[d] == 0 -> d++
			:: else -> break
			od;
			items[d]--
		fi;
		total--;
		busy++;
		lock = 0
	   };
	   atomic {
		lock == 0 -> lock = _pid + 1;
		busy--;
		if
		:: d < D -> items[d + 1] = items[d + 1] + 2; total = total + 2
		:: else -> leaves++
		fi;
		if
		:: total == 0 && busy == 0 -> root = 1; total = 1; leaves = 0
		:: else
		fi;
		notifyall();
		d = 0;
		lock = 0
	   }
	od
}
