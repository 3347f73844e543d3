/* Dining philosophers, the SPIN twin of philo_meals.mcasm: N active
 * philosophers, each looping forever over five steps (lock left, lock
 * right, eat, unlock right, unlock left) with a meal counter modulo
 * MEALS of its own (a global array, only its own element written). A fork holds its owner's _pid + 1 (mcvm's monitor
 * owner is the thread's id + 1), 0 when free.
 * spin -DN=3 -DMEALS=2 -a philo_meals.pml && gcc -O2 -DNOREDUCE -o pan pan.c && ./pan -m100000 -c0 */
#ifndef N
#define N 3
#endif
#ifndef MEALS
#define MEALS 2
#endif

byte fork[N];
byte meals[N];	/* global, so that SPIN's statement merging (of local
		 * assignments) does not fold eating into the next step */

active [N] proctype phil() {
	byte l = _pid;
	byte r = (_pid + 1) % N;
	do
	:: atomic { fork[l] == 0 -> fork[l] = _pid + 1 };
	   atomic { fork[r] == 0 -> fork[r] = _pid + 1 };
	   meals[_pid] = (meals[_pid] + 1) % MEALS;
	   fork[r] = 0;
	   fork[l] = 0
	od
}
