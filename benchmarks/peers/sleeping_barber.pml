/* A sleeping barber shop in one Java-style monitor, the SPIN twin of
 * sleeping_barber.mcasm: B barbers and C customers loop forever.
 *   barber:   synchronized (shop) { while (waiting == 0) shop.wait(); waiting--; }
 *             (cut)
 *             synchronized (shop) { done++; shop.notifyAll(); }
 *   customer: synchronized (shop) {
 *                 if (waiting < CHAIRS) {
 *                     waiting++; shop.notifyAll();
 *                     while (done == 0) shop.wait();
 *                     done--;
 *                 }       // else all chairs are taken: leave, come back later
 *             }
 * A barber sleeps (waits) while no customer sits in a chair; a customer
 * sits, wakes the barbers and waits for a finished haircut. lock holds the
 * owner's _pid + 1 (mcvm's monitor owner), 0 when free; w[p] is 1 while p
 * waits and 2 once notified, until it holds the monitor again. Each block
 * is one atomic sequence, whose wait blocks it and loses atomicity.
 * spin -DB=1 -DC=2 -DCHAIRS=1 -a sleeping_barber.pml && gcc -O2 -DNOREDUCE -o pan pan.c && ./pan -m100000 -c0 */
#ifndef B
#define B 1
#endif
#ifndef C
#define C 2
#endif
#ifndef CHAIRS
#define CHAIRS 1
#endif
#define NT (B + C)

byte lock;
byte waiting;	/* customers in chairs */
byte done;	/* haircuts finished and not yet collected */
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

active [B] proctype barber() {
	byte i;
	do
	:: atomic {
		lock == 0 -> lock = _pid + 1;
		do
		:: waiting == 0 -> wait()
		:: else -> break
		od;
		waiting--;
		lock = 0
	   };
	   atomic {
		lock == 0 -> lock = _pid + 1;
		done++;
		notifyall();
		lock = 0
	   }
	od
}

active [C] proctype customer() {
	byte i;
	do
	:: atomic {
		lock == 0 -> lock = _pid + 1;
		if
		:: waiting < CHAIRS ->
			waiting++;
			notifyall();
			do
			:: done == 0 -> wait()
			:: else -> break
			od;
			done--
		:: else
		fi;
		lock = 0
	   }
	od
}
