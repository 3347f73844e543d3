/* Dining philosophers for the SPIN comparison of issue 4: the same
 * protocol as benchmarks/models/philo.mcasm at the same step granularity.
 * A fork is a monitor: 0 when free, else its owner's _pid (mcvm stores the
 * owner thread's id + 1). Philosopher i takes fork i, then fork (i+1) % N,
 * puts down the right one, then the left one, forever; each of these four
 * is one step (one mcvm transition: monitorenter/monitorexit are scheduling
 * points and the loads and goto in between merge into them). The main
 * process stores the N forks (N steps, mcvm's arrstores) and starts the
 * philosophers one by one (one step each: mcvm's start; its arrloads of
 * the array are steps in mcvm too, so mcvm's space is a little larger).
 * Every philosopher holding its left fork is a deadlock; the comparison
 * runs with -E (no end-state check) so both tools explore everything. */
#ifndef N
#define N 8
#endif

byte fork[N];
byte made;

proctype phil(byte l; byte r) {
	skip;	/* mcvm's first transition of a thread: the loads before its first monitorenter */
loop:
	atomic { fork[l] == 0 -> fork[l] = _pid };
	atomic { fork[r] == 0 -> fork[r] = _pid };
	fork[r] = 0;
	fork[l] = 0;
	goto loop
}

init {
	byte i, l, r;
	do
	:: i < N -> atomic { made++; i++ }	/* forks[i] = new Fork */
	:: else -> break
	od;
	i = 0;
	do
	:: i < N ->
		l = i;	/* arrload forks[i] */
		r = (i + 1) % N;	/* arrload forks[(i+1) % N] */
		atomic { run phil(l, r); i++; l = 0; r = 0 }	/* start */
	:: else -> break
	od
}
